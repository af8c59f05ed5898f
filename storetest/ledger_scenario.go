package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// soundLedger is a ledger as the use cases leave it: a leg in every state
// and a transfer of every kind.
type soundLedger struct {
	world
	open, cancelled disburse.Batch
	paid            disburse.Payment // to a member: PAY
	held            disburse.Payment // to a non-member: HOLD
	registered      disburse.Payment // HOLD, then SETTLE at registration; its referral to a member: PAY
	reversed        disburse.Payment // HOLD, then REVERSE
	both            disburse.Payment // both legs held
	deleted         disburse.Payment // deleted while DRAFT
	dropped         disburse.Payment // cancelled with its DRAFT batch: no transfers
}

func newSoundLedger(t *testing.T, s disburse.Store) soundLedger {
	t.Helper()
	ctx := t.Context()
	l := soundLedger{world: newWorld(t, s)}
	l.deposit(t, s, 1000_00)
	submitted, due := at(time.Minute), at(60*24*time.Hour)

	l.open, l.cancelled = l.batch("open", t0), l.batch("cancelled", t0)
	l.paid = payment(l.open, msisdnKE, 100_00)
	l.held = payment(l.open, msisdnUK, 50_00)
	l.registered = withReferral(payment(l.open, msisdnKE2, 30_00), msisdnKE, 5_00)
	l.reversed = payment(l.open, msisdnUK2, 20_00)
	l.both = withReferral(payment(l.open, msisdnKE3, 10_00), msisdnUK, 4_00)
	l.deleted = payment(l.open, msisdnUK, 7_00)
	l.dropped = payment(l.cancelled, msisdnUK, 15_00)
	drafts := []disburse.Payment{l.paid, l.held, l.registered, l.reversed, l.both, l.deleted, l.dropped}

	l.paid.Status, l.paid.IsMember, l.paid.SubmittedAt, l.paid.SettledAt = disburse.PaymentSettled, true, submitted, submitted
	l.held = pending(l.held, due)
	l.registered = pending(l.registered, due)
	l.registered.Status, l.registered.IsMember, l.registered.SettledAt = disburse.PaymentSettled, true, at(time.Hour)
	l.registered.ReferralStatus, l.registered.ReferralSettledAt = disburse.PaymentSettled, at(2*time.Minute)
	l.reversed = pending(l.reversed, due)
	l.reversed.Status, l.reversed.CancelledAt = disburse.PaymentCancelled, due.Add(time.Hour)
	l.both = pending(l.both, due)
	l.deleted.Status = disburse.PaymentDeleted
	l.dropped.Status, l.dropped.CancelledAt = disburse.PaymentCancelled, submitted

	l.open.Status, l.open.SubmittedAt = disburse.BatchOpen, submitted
	l.open.Summary = disburse.Summary{
		PaymentsAmount: 210_00, PaymentsCount: 5, ReferralsAmount: 9_00,
		PendingAmount: 60_00, PendingCount: 2, SettledAmount: 130_00, SettledCount: 2,
		CancelledAmount: 20_00, CancelledCount: 1, HeldAmount: 64_00,
	}
	l.cancelled.Status, l.cancelled.ClosedAt = disburse.BatchCancelled, submitted
	l.cancelled.Summary = disburse.Summary{PaymentsAmount: 15_00, PaymentsCount: 1, CancelledAmount: 15_00, CancelledCount: 1}

	write(t, s, func(tx disburse.Tx) error {
		for _, b := range []disburse.Batch{l.open, l.cancelled} {
			if err := tx.InsertBatch(ctx, b); err != nil {
				return err
			}
		}
		if err := tx.InsertPayments(ctx, drafts); err != nil {
			return err
		}
		if err := tx.UpdatePaymentStates(ctx, []disburse.Payment{l.paid, l.held, l.registered, l.reversed, l.both, l.deleted, l.dropped}); err != nil {
			return err
		}
		for _, m := range []string{msisdnKE, msisdnKE2} {
			if _, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: m, RegisteredAt: t0}}); err != nil {
				return err
			}
		}
		wallets, err := tx.EnsureWallets(ctx, "KES", []string{msisdnKE, msisdnKE2}, t0)
		if err != nil {
			return err
		}
		payout, holding := l.payout.ID, l.holding.ID
		return tx.InsertTransfers(ctx, []disburse.Transfer{
			transfer(payout, wallets[msisdnKE], 100_00, disburse.TransferPay, l.paid, disburse.LegPayment, submitted),
			transfer(payout, holding, 50_00, disburse.TransferHold, l.held, disburse.LegPayment, submitted),
			transfer(payout, holding, 30_00, disburse.TransferHold, l.registered, disburse.LegPayment, submitted),
			transfer(payout, wallets[msisdnKE], 5_00, disburse.TransferPay, l.registered, disburse.LegReferral, at(2*time.Minute)),
			transfer(holding, wallets[msisdnKE2], 30_00, disburse.TransferSettle, l.registered, disburse.LegPayment, at(time.Hour)),
			transfer(payout, holding, 20_00, disburse.TransferHold, l.reversed, disburse.LegPayment, submitted),
			transfer(holding, payout, 20_00, disburse.TransferReverse, l.reversed, disburse.LegPayment, due.Add(time.Hour)),
			transfer(payout, holding, 10_00, disburse.TransferHold, l.both, disburse.LegPayment, submitted),
			transfer(payout, holding, 4_00, disburse.TransferHold, l.both, disburse.LegReferral, submitted),
		})
	})
	return l
}
