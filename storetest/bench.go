package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// BenchBatch100k adds 100,000 payments to a batch the way AddPayments
// does (external ids and members looked up, then the bulk insert), then
// submits them the way Submit does: wallets for the members, every
// payment's state, one transfer per payment with the aggregated balance
// update, an SMS per non-member. It reports each phase in ms per 100,000
// payments, and how long the ledger audit of everything takes at the end.
// Each store's BenchmarkBatch100k runs it on a new, empty store.
func BenchBatch100k(b *testing.B, s disburse.Store) {
	const n = 100_000
	ctx := b.Context()
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	org := disburse.Organisation{ID: disburse.NewID(), Name: "Bench", Currency: "KES", HoldingAccountID: disburse.NewID(), CreatedAt: now}
	holding := disburse.Account{ID: org.HoldingAccountID, OrganisationID: org.ID, Kind: disburse.AccountHolding, Name: "h", Currency: "KES", CreatedAt: now}
	payout := disburse.Account{ID: disburse.NewID(), OrganisationID: org.ID, Kind: disburse.AccountPayout, Name: "p", Currency: "KES", CreatedAt: now}
	err := s.Write(ctx, func(tx disburse.Tx) error {
		for _, err := range []error{tx.InsertOrganisation(ctx, org), tx.InsertAccount(ctx, holding), tx.InsertAccount(ctx, payout)} {
			if err != nil {
				return err
			}
		}
		return tx.InsertTransfers(ctx, []disburse.Transfer{{ID: disburse.NewID(), FromAccountID: disburse.FundingAccountID,
			ToAccountID: payout.ID, Amount: 1 << 60, Kind: disburse.TransferDeposit, CreatedAt: now}})
	})
	if err != nil {
		b.Fatal(err)
	}
	var add, submit time.Duration
	for b.Loop() {
		batch := disburse.Batch{ID: disburse.NewID(), OrganisationID: org.ID, AccountID: payout.ID, Name: "bench", Status: disburse.BatchDraft, CreatedAt: now}
		ps := make([]disburse.Payment, n)
		exts, msisdns := make([]string, n), make([]string, n)
		for i := range ps {
			ps[i] = disburse.Payment{ID: disburse.NewID(), BatchID: batch.ID, OrganisationID: org.ID,
				Msisdn: fmt.Sprintf("2547%08d", i), Amount: 150_00, Firstname: "First", Lastname: "Last",
				ExternalID: fmt.Sprintf("%s-%d", batch.ID[:8], i), Status: disburse.PaymentDraft, CreatedAt: now}
			exts[i], msisdns[i] = ps[i].ExternalID, ps[i].Msisdn
			batch.Summary.PaymentsAmount += ps[i].Amount
		}
		batch.Summary.PaymentsCount = n
		start := time.Now()
		err := s.Write(ctx, func(tx disburse.Tx) error {
			if err := tx.InsertBatch(ctx, batch); err != nil {
				return err
			}
			// What AddPayments reads before it writes.
			if _, err := tx.ExternalIDsInUse(ctx, org.ID, exts, batch.ID); err != nil {
				return err
			}
			if _, err := tx.Members(ctx, msisdns); err != nil {
				return err
			}
			return tx.InsertPayments(ctx, ps)
		})
		if err != nil {
			b.Fatal(err)
		}
		add += time.Since(start)

		start = time.Now()
		err = s.Write(ctx, func(tx disburse.Tx) error {
			if err := benchSubmit(ctx, tx, payout, holding, ps, now); err != nil {
				return err
			}
			batch.Status, batch.SubmittedAt = disburse.BatchOpen, now
			batch.Summary.SettledAmount, batch.Summary.SettledCount = batch.Summary.PaymentsAmount/2, n/2
			batch.Summary.PendingAmount, batch.Summary.PendingCount = batch.Summary.PaymentsAmount/2, n/2
			batch.Summary.HeldAmount = batch.Summary.PendingAmount
			return tx.UpdateBatch(ctx, batch)
		})
		if err != nil {
			b.Fatal(err)
		}
		submit += time.Since(start)
	}
	b.ReportMetric(float64(add.Milliseconds())/float64(b.N), "add-ms/op")
	b.ReportMetric(float64(submit.Milliseconds())/float64(b.N), "submit-ms/op")

	start := time.Now()
	var problems []string
	err = s.Read(ctx, func(tx disburse.Tx) (err error) { problems, err = tx.LedgerProblems(ctx); return err })
	if err != nil {
		b.Fatal(err)
	}
	if len(problems) > 0 {
		b.Errorf("LedgerProblems = %q", problems)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "audit-ms")
}

// benchSubmit moves every payment as Submit would: even ones to members.
func benchSubmit(ctx context.Context, tx disburse.Tx, payout, holding disburse.Account, ps []disburse.Payment, now time.Time) error {
	var members []string
	for i, p := range ps {
		if i%2 == 0 {
			members = append(members, p.Msisdn)
		}
	}
	wallets, err := tx.EnsureWallets(ctx, "KES", members, now)
	if err != nil {
		return err
	}
	ts := make([]disburse.Transfer, len(ps))
	var sms []disburse.Notification
	for i := range ps {
		p := &ps[i]
		p.SubmittedAt = now
		to, kind := wallets[p.Msisdn], disburse.TransferPay
		if i%2 == 0 {
			p.Status, p.IsMember, p.SettledAt = disburse.PaymentSettled, true, now
		} else {
			p.Status, p.ReversalDueAt = disburse.PaymentPending, now.Add(disburse.DefaultReversalPeriod)
			to, kind = holding.ID, disburse.TransferHold
			sms = append(sms, disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: p.Msisdn,
				Message: "You have a payment waiting", Status: disburse.NotificationPending, NextAttemptAt: now, CreatedAt: now})
		}
		ts[i] = disburse.Transfer{ID: disburse.NewID(), FromAccountID: payout.ID, ToAccountID: to, Amount: p.Amount,
			Kind: kind, PaymentID: p.ID, Leg: disburse.LegPayment, CreatedAt: now}
	}
	if err := tx.UpdatePaymentStates(ctx, ps); err != nil {
		return err
	}
	if err := tx.InsertTransfers(ctx, ts); err != nil {
		return err
	}
	return tx.InsertNotifications(ctx, sms)
}
