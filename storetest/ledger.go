package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// transfer is a transfer of a payment leg, not yet stored.
func transfer(from, to string, amount disburse.Money, kind disburse.TransferKind, p disburse.Payment, leg disburse.Leg, created time.Time) disburse.Transfer {
	return disburse.Transfer{ID: disburse.NewID(), FromAccountID: from, ToAccountID: to, Amount: amount,
		Kind: kind, PaymentID: p.ID, Leg: leg, CreatedAt: created}
}

func testInsertTransfers(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, _, p := draftPayment(t, s, 100_00, 30_00)
	w.deposit(t, s, 50_00)
	// Many transfers touching the same accounts: one balance change each.
	write(t, s, func(tx disburse.Tx) error {
		return tx.InsertTransfers(ctx, []disburse.Transfer{
			transfer(w.payout.ID, w.holding.ID, 10_00, disburse.TransferHold, p, disburse.LegPayment, t0),
			transfer(w.payout.ID, w.holding.ID, 20_00, disburse.TransferHold, p, disburse.LegReferral, t0),
			transfer(w.holding.ID, w.payout.ID, 5_00, disburse.TransferReverse, p, disburse.LegPayment, t0),
		})
	})
	for _, c := range []struct {
		id   string
		want disburse.Money
	}{{disburse.FundingAccountID, -150_00}, {w.payout.ID, 125_00}, {w.holding.ID, 25_00}} {
		if got := balance(t, s, c.id); got != c.want {
			t.Errorf("balance of %s = %s, want %s", c.id, got, c.want)
		}
	}
	write(t, s, func(tx disburse.Tx) error { return tx.InsertTransfers(ctx, nil) })
}

// testInsertTransferRows: rows first, balances once, in one transaction,
// as a submit writes them; a change that would take a balance below zero
// fails like InsertTransfers. (Rows filled while the insert runs:
// testInsertPaymentsAsReady, the same insert.)
func testInsertTransferRows(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, _, p := draftPayment(t, s, 100_00, 30_00)
	write(t, s, func(tx disburse.Tx) error {
		changes := make(disburse.BalanceChanges)
		for _, page := range [][]disburse.Transfer{
			{transfer(w.payout.ID, w.holding.ID, 10_00, disburse.TransferHold, p, disburse.LegPayment, t0)},
			{transfer(w.payout.ID, w.holding.ID, 20_00, disburse.TransferHold, p, disburse.LegReferral, t0)},
		} {
			if err := tx.InsertTransferRows(ctx, page, allReady(len(page))); err != nil {
				return err
			}
			changes.Add(page)
		}
		if a, err := tx.Account(ctx, w.holding.ID); err != nil || a.Balance != 0 {
			t.Errorf("holding balance before ApplyBalances = %s (%v), want 0.00", a.Balance, err)
		}
		return tx.ApplyBalances(ctx, changes)
	})
	if got := balance(t, s, w.payout.ID); got != 70_00 {
		t.Errorf("payout balance = %s, want 70.00", got)
	}
	if got := balance(t, s, w.holding.ID); got != 30_00 {
		t.Errorf("holding balance = %s, want 30.00", got)
	}
	err := s.Write(ctx, func(tx disburse.Tx) error {
		return tx.ApplyBalances(ctx, disburse.BalanceChanges{w.holding.ID: -31_00, w.payout.ID: 31_00})
	})
	if err == nil {
		t.Error("ApplyBalances past the balance: no error")
	}
	if got := balance(t, s, w.holding.ID); got != 30_00 {
		t.Errorf("holding balance after the refused change = %s, want 30.00", got)
	}
}

// testInsertTransfersRefusesNegativeBalance: the whole Write fails and
// nothing of it stays, neither the transfers nor what came before them.
func testInsertTransfersRefusesNegativeBalance(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, _, p := draftPayment(t, s, 10_00, 30_00)
	err := s.Write(ctx, func(tx disburse.Tx) error {
		return memberThenTransfers(ctx, tx,
			transfer(w.payout.ID, w.holding.ID, 6_00, disburse.TransferHold, p, disburse.LegPayment, t0),
			transfer(w.payout.ID, w.holding.ID, 6_00, disburse.TransferHold, p, disburse.LegReferral, t0))
	})
	w.keptNothing(t, s, "InsertTransfers past the balance", err, 10_00)
	if got := balance(t, s, w.holding.ID); got != 0 {
		t.Errorf("holding balance = %s, want 0.00 unchanged", got)
	}
}

// memberThenTransfers inserts the member msisdnKE and then ts: a write
// whose first part must not stay when the transfers are refused.
func memberThenTransfers(ctx context.Context, tx disburse.Tx, ts ...disburse.Transfer) error {
	if _, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}}); err != nil {
		return err
	}
	return tx.InsertTransfers(ctx, ts)
}

// keptNothing fails the test unless err, from a write of
// memberThenTransfers past the payout's balance, is a failure that kept
// nothing: the payout's balance still float, no member msisdnKE.
func (w world) keptNothing(t *testing.T, s disburse.Store, what string, err error, float disburse.Money) {
	t.Helper()
	if err == nil {
		t.Fatalf("%s: no error", what)
	}
	if got := balance(t, s, w.payout.ID); got != float {
		t.Errorf("payout balance = %s, want %s unchanged", got, float)
	}
	notFound(t, s, "member written before the refused transfers", func(tx disburse.Tx) error {
		_, err := member(tx, msisdnKE)
		return err
	})
}

func testStatementEntries(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	l := newSoundLedger(t, s)
	got := get(t, s, func(tx disburse.Tx) ([]disburse.StatementEntry, error) { return tx.StatementEntries(ctx, msisdnKE) })
	want := []disburse.StatementEntry{
		{PaymentID: l.paid.ID, Leg: disburse.LegPayment, OrganisationName: l.org.Name, Amount: 100_00, Currency: "KES", SettledAt: at(time.Minute)},
		{PaymentID: l.registered.ID, Leg: disburse.LegReferral, OrganisationName: l.org.Name, Amount: 5_00, Currency: "KES", SettledAt: at(2 * time.Minute)},
	}
	same(t, "StatementEntries", want, got)
	got = get(t, s, func(tx disburse.Tx) ([]disburse.StatementEntry, error) { return tx.StatementEntries(ctx, msisdnKE2) })
	want = []disburse.StatementEntry{
		{PaymentID: l.registered.ID, Leg: disburse.LegPayment, OrganisationName: l.org.Name, Amount: 30_00, Currency: "KES", SettledAt: at(time.Hour)},
	}
	same(t, "StatementEntries after registration", want, got)
	if got := get(t, s, func(tx disburse.Tx) ([]disburse.StatementEntry, error) { return tx.StatementEntries(ctx, msisdnUK2) }); len(got) != 0 {
		t.Errorf("StatementEntries of a stranger = %v", got)
	}
}

func testLedgerSound(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	if problems := get(t, s, func(tx disburse.Tx) ([]string, error) { return tx.LedgerProblems(ctx) }); len(problems) != 0 {
		t.Errorf("LedgerProblems of an empty ledger = %q", problems)
	}
	newSoundLedger(t, s)
	if problems := get(t, s, func(tx disburse.Tx) ([]string, error) { return tx.LedgerProblems(ctx) }); len(problems) != 0 {
		t.Errorf("LedgerProblems of a sound ledger = %q", problems)
	}
}
