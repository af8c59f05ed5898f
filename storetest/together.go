package storetest

import (
	"errors"
	"testing"

	"github.com/disburse/disburse"
)

// testTogether: writes held inside Tx.Together run before the statement
// whose rows fn reads next, in the order fn issued them, and are kept at
// the commit (docs/benchmarks.md, "Registration").
func testTogether(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, b, p := draftPayment(t, s, 10_00, 3_00)
	settled := p
	settled.Status, settled.SubmittedAt, settled.SettledAt = disburse.PaymentSettled, at(0), at(0)
	var got []disburse.Batch
	write(t, s, func(tx disburse.Tx) error {
		return tx.Together(ctx, func() error {
			if err := tx.InsertTransfers(ctx, []disburse.Transfer{
				transfer(w.payout.ID, w.holding.ID, 3_00, disburse.TransferHold, p, disburse.LegPayment, t0),
			}); err != nil {
				return err
			}
			if err := tx.UpdatePaymentStates(ctx, []disburse.Payment{settled}); err != nil {
				return err
			}
			var err error
			got, err = tx.AddToSummaries(ctx, []string{b.ID}, []disburse.Summary{{SettledAmount: 3_00, SettledCount: 1}})
			if err != nil {
				return err
			}
			// Read inside the transaction: the held writes ran before it.
			if a, err := tx.Account(ctx, w.holding.ID); err != nil || a.Balance != 3_00 {
				t.Errorf("holding inside Together = %v, %v; want 3.00", a.Balance, err)
			}
			return nil
		})
	})
	if len(got) != 1 || got[0].Summary.SettledAmount != b.Summary.SettledAmount+3_00 {
		t.Errorf("AddToSummaries inside Together = %+v, want settled %s more", got, disburse.Money(3_00))
	}
	if got := balance(t, s, w.payout.ID); got != 7_00 {
		t.Errorf("payout balance = %s, want 7.00", got)
	}
	same(t, "payment", settled, get(t, s, func(tx disburse.Tx) (disburse.Payment, error) { return tx.Payment(ctx, p.ID) }))
}

// testTogetherFails: a held write's failure comes back, as the error it
// would have been alone, from a later call or from Together, and nothing
// of the transaction is kept.
func testTogetherFails(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, b, p := draftPayment(t, s, 10_00, 30_00)
	err := s.Write(ctx, func(tx disburse.Tx) error {
		return tx.Together(ctx, func() error {
			return memberThenTransfers(ctx, tx,
				transfer(w.payout.ID, w.holding.ID, 30_00, disburse.TransferHold, p, disburse.LegPayment, t0))
		})
	})
	w.keptNothing(t, s, "held transfers past the balance", err, 10_00)
	missing := payment(b, msisdnKE, 100)
	err = s.Write(ctx, func(tx disburse.Tx) error {
		return tx.Together(ctx, func() error { return tx.UpdatePaymentStates(ctx, []disburse.Payment{missing}) })
	})
	if !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("held UpdatePaymentStates of a missing payment = %v, want ErrNotFound", err)
	}
}
