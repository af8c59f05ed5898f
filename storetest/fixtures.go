package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/txvalue"
)

// t0 is the suite's clock: UTC and whole microseconds, the precision the
// stores keep, so that what is read back equals what was written.
var t0 = time.Date(2026, 11, 22, 10, 15, 30, 123456000, time.UTC)

// Msisdns that libphonenumber accepts.
const (
	msisdnKE  = "254712345678"
	msisdnKE2 = "254722000111"
	msisdnKE3 = "254733000222"
	msisdnUK  = "447911123456"
	msisdnUK2 = "447700900123"
)

// at is t0 moved by d.
func at(d time.Duration) time.Time { return t0.Add(d) }

// write runs fn in a write transaction and fails the test if it fails.
func write(t *testing.T, s disburse.Store, fn func(disburse.Tx) error) {
	t.Helper()
	writeIn(t, s.Write, fn)
}

// get reads one value in a read-only transaction and fails the test if it fails.
func get[T any](t *testing.T, s disburse.Store, fn func(disburse.Tx) (T, error)) T {
	t.Helper()
	return getIn(t, s.Read, fn)
}

// notFound fails the test unless fn, run in a read-only transaction,
// returns disburse.ErrNotFound.
func notFound(t *testing.T, s disburse.Store, what string, fn func(disburse.Tx) error) {
	t.Helper()
	notFoundIn(t, s.Read, what, fn)
}

// A port's transactions: a Store's Write or Read, or a feature's.
type txRunner[Tx any] func(context.Context, func(Tx) error) error

// writeIn is write for any port.
func writeIn[Tx any](t *testing.T, run txRunner[Tx], fn func(Tx) error) {
	t.Helper()
	if err := run(t.Context(), fn); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// getIn is get for any port.
func getIn[Tx, T any](t *testing.T, run txRunner[Tx], fn func(Tx) (T, error)) T {
	t.Helper()
	v, err := txvalue.Read(t.Context(), run, fn)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	return v
}

// notFoundIn is notFound for any port.
func notFoundIn[Tx any](t *testing.T, run txRunner[Tx], what string, fn func(Tx) error) {
	t.Helper()
	err := run(t.Context(), fn)
	if !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("%s: got %v, want ErrNotFound", what, err)
	}
}

// same fails the test when got differs from want; nil and empty are equal.
func same(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if diff := cmp.Diff(want, got, append(opts, cmpopts.EquateEmpty())...); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}

// world is an organisation with its holding and default payout accounts.
type world struct {
	org             disburse.Organisation
	payout, holding disburse.Account
}

// newWorld creates an organisation in KES, as the use cases do: the
// organisation first, naming its holding account, then the accounts.
func newWorld(t *testing.T, s disburse.Store) world {
	t.Helper()
	w := world{org: disburse.Organisation{
		ID: disburse.NewID(), Name: "Acme " + disburse.NewID()[:8], Currency: "KES",
		ReferralsEnabled: true, ReversalPeriod: 60 * 24 * time.Hour,
		HoldingAccountID: disburse.NewID(), CreatedAt: t0,
	}}
	w.holding = disburse.Account{ID: w.org.HoldingAccountID, OrganisationID: w.org.ID, Kind: disburse.AccountHolding,
		Name: "Holding", Currency: "KES", CreatedAt: t0}
	w.payout = disburse.Account{ID: disburse.NewID(), OrganisationID: w.org.ID, Kind: disburse.AccountPayout,
		Name: "Main", Currency: "KES", IsDefault: true, CreatedAt: t0}
	write(t, s, func(tx disburse.Tx) error {
		return errors.Join(tx.InsertOrganisation(t.Context(), w.org),
			tx.InsertAccount(t.Context(), w.holding), tx.InsertAccount(t.Context(), w.payout))
	})
	return w
}

// deposit moves amount from the funding account into the payout account.
func (w world) deposit(t *testing.T, s disburse.Store, amount disburse.Money) {
	t.Helper()
	write(t, s, func(tx disburse.Tx) error {
		return tx.InsertTransfers(t.Context(), []disburse.Transfer{{
			ID: disburse.NewID(), FromAccountID: disburse.FundingAccountID, ToAccountID: w.payout.ID,
			Amount: amount, Kind: disburse.TransferDeposit, Reference: "float", CreatedAt: t0,
		}})
	})
}

// batch returns a new DRAFT batch of the world, not yet stored.
func (w world) batch(name string, created time.Time) disburse.Batch {
	return disburse.Batch{ID: disburse.NewID(), OrganisationID: w.org.ID, AccountID: w.payout.ID,
		Name: name, Status: disburse.BatchDraft, CreatedAt: created}
}

// insertBatch stores a new DRAFT batch.
func (w world) insertBatch(t *testing.T, s disburse.Store, name string) disburse.Batch {
	t.Helper()
	b := w.batch(name, t0)
	write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(t.Context(), b) })
	return b
}

// insertOpenBatch stores a new batch as a submit leaves one with legs
// pending: OPEN, its legs due at due (none when due is zero, as a release
// before migration 00017 left it).
func (w world) insertOpenBatch(t *testing.T, s disburse.Store, name string, due time.Time) disburse.Batch {
	t.Helper()
	b := w.batch(name, t0)
	b.Status, b.SubmittedAt, b.ReversalDueAt = disburse.BatchOpen, t0, due
	write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(t.Context(), b) })
	return b
}

// draftPayment is the setup of a ledger test: a new world with float
// deposited, a DRAFT batch in it, and one stored DRAFT payment of amount
// to msisdnUK in the batch.
func draftPayment(t *testing.T, s disburse.Store, float, amount disburse.Money) (world, disburse.Batch, disburse.Payment) {
	t.Helper()
	w := newWorld(t, s)
	w.deposit(t, s, float)
	b := w.insertBatch(t, s, "b")
	p := payment(b, msisdnUK, amount)
	insertPayments(t, s, p)
	return w, b, p
}

// payment returns a new DRAFT payment in b, not yet stored.
func payment(b disburse.Batch, msisdn string, amount disburse.Money) disburse.Payment {
	return disburse.Payment{ID: disburse.NewID(), BatchID: b.ID, OrganisationID: b.OrganisationID,
		Msisdn: msisdn, Amount: amount, Status: disburse.PaymentDraft, CreatedAt: t0}
}

// withReferral gives p a DRAFT referral leg.
func withReferral(p disburse.Payment, msisdn string, amount disburse.Money) disburse.Payment {
	p.ReferralMsisdn, p.ReferralAmount, p.ReferralStatus = msisdn, amount, disburse.PaymentDraft
	return p
}

// insertPayments stores ps.
func insertPayments(t *testing.T, s disburse.Store, ps ...disburse.Payment) {
	t.Helper()
	write(t, s, func(tx disburse.Tx) error { return tx.InsertPayments(t.Context(), ps) })
}

// pending marks p's legs PENDING, as a submit to a non-member does.
func pending(p disburse.Payment, due time.Time) disburse.Payment {
	p.Status, p.SubmittedAt, p.ReversalDueAt = disburse.PaymentPending, t0, due
	if p.HasReferral() {
		p.ReferralStatus = disburse.PaymentPending
	}
	return p
}

// balance reads an account's stored balance.
func balance(t *testing.T, s disburse.Store, id string) disburse.Money {
	t.Helper()
	return get(t, s, func(tx disburse.Tx) (disburse.Money, error) {
		a, err := tx.Account(t.Context(), id)
		return a.Balance, err
	})
}

// ids lists the ids of payments.
func ids(ps []disburse.Payment) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}
