package storetest

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// testInsertPaymentsKeepsOrder: Payments lists in the order of addition,
// which is neither the order of the ids nor of anything else.
func testInsertPaymentsKeepsOrder(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "big")
	ps := numberedPayments(b, 3000, "e")
	rand.Shuffle(len(ps), func(i, j int) { ps[i], ps[j] = ps[j], ps[i] })
	insertPayments(t, s, ps[:1000]...)
	insertPayments(t, s, ps[1000:]...)
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		return tx.Payments(ctx, b.ID, disburse.PaymentFilter{})
	})
	same(t, "Payments order", ids(ps), ids(got))
}

// numberedPayments are n payments of b to one payee, each with its own
// amount and its external id prefix and its index.
func numberedPayments(b disburse.Batch, n int, prefix string) []disburse.Payment {
	ps := make([]disburse.Payment, n)
	for i := range ps {
		ps[i] = payment(b, msisdnKE, disburse.Money(100+i))
		ps[i].ExternalID = fmt.Sprintf("%s%d", prefix, i)
	}
	return ps
}

// testInsertPaymentsAsReady: payments filled a run at a time while the
// insert runs go in, in order, each read only once ready has reported
// it; an error from ready ends the insert with it, and nothing of it
// stays.
func testInsertPaymentsAsReady(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "runs")
	want := numberedPayments(b, 2500, "r")
	// ps is filled a run of 700 at a time, as ready is called: a payment
	// read before its run is the zero Payment, which no store accepts.
	insert := func(fail error) error {
		ps := make([]disburse.Payment, len(want))
		filled := 0
		ready := func() (int, error) {
			if fail != nil && filled >= 1400 {
				return 0, fail
			}
			to := min(filled+700, len(ps))
			copy(ps[filled:to], want[filled:to])
			filled = to
			return filled, nil
		}
		return s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertPaymentsAsReady(ctx, ps, ready) })
	}
	stopped := errors.New("payment 1400 failed its checks")
	if err := insert(stopped); !errors.Is(err, stopped) {
		t.Fatalf("InsertPaymentsAsReady whose ready failed: %v, want %v", err, stopped)
	}
	list := func() []disburse.Payment {
		return get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
			return tx.Payments(ctx, b.ID, disburse.PaymentFilter{Take: 5000})
		})
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("after a failed InsertPaymentsAsReady: %d payments, want none", len(got))
	}
	if err := insert(nil); err != nil {
		t.Fatalf("InsertPaymentsAsReady: %v", err)
	}
	same(t, "Payments", want, list())
}

func testPayment(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "b")
	p := withReferral(payment(b, msisdnKE, 12_34), msisdnUK, 5_67)
	p.Firstname, p.Lastname, p.ExternalID = "Zoë \"Z\" \\ O'Neil\n", "Ünïcödé 名前", "ext?1"
	p.Status, p.IsMember = disburse.PaymentSettled, true
	p.SubmittedAt, p.SettledAt, p.ReversalDueAt = at(time.Minute), at(time.Minute), at(time.Hour)
	p.ReferralStatus = disburse.PaymentPending
	q := payment(b, msisdnKE2, 1_00) // every optional field empty
	insertPayments(t, s, p, q)
	for _, want := range []disburse.Payment{p, q} {
		same(t, "Payment", want, get(t, s, func(tx disburse.Tx) (disburse.Payment, error) { return tx.Payment(ctx, want.ID) }))
	}
	notFound(t, s, "Payment", func(tx disburse.Tx) error { _, err := tx.Payment(ctx, disburse.NewID()); return err })
	same(t, "PaymentsByID", map[string]disburse.Payment{p.ID: p, q.ID: q},
		get(t, s, func(tx disburse.Tx) (map[string]disburse.Payment, error) {
			return tx.PaymentsByID(ctx, []string{q.ID, disburse.NewID(), p.ID, q.ID})
		}))
}

func testPayments(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b, other := w.insertBatch(t, s, "b"), w.insertBatch(t, s, "other")
	var ps []disburse.Payment
	for i := range 5 {
		p := payment(b, msisdnKE, disburse.Money(100*(i+1)))
		if i%2 == 1 {
			p = pending(p, at(time.Hour))
		}
		ps = append(ps, p)
	}
	insertPayments(t, s, ps...)
	insertPayments(t, s, payment(other, msisdnKE, 100))
	for _, c := range []struct {
		name   string
		filter disburse.PaymentFilter
		want   []disburse.Payment
	}{
		{"all", disburse.PaymentFilter{}, ps},
		{"page", disburse.PaymentFilter{Skip: 1, Take: 3}, ps[1:4]},
		{"skip only", disburse.PaymentFilter{Skip: 3}, ps[3:]},
		{"status", disburse.PaymentFilter{Status: disburse.PaymentPending}, []disburse.Payment{ps[1], ps[3]}},
		{"status page", disburse.PaymentFilter{Status: disburse.PaymentDraft, Skip: 1, Take: 1}, ps[2:3]},
		{"none", disburse.PaymentFilter{Status: disburse.PaymentSettled}, nil},
	} {
		got := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) { return tx.Payments(ctx, b.ID, c.filter) })
		same(t, "Payments "+c.name, c.want, got)
	}
}

// withExt is a payment of b with external id ext, in status.
func withExt(b disburse.Batch, ext string, status disburse.PaymentStatus) disburse.Payment {
	p := payment(b, msisdnKE, 100)
	p.ExternalID, p.Status = ext, status
	return p
}

func testExternalIDsInUse(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	b1, b2, theirs := w.insertBatch(t, s, "1"), w.insertBatch(t, s, "2"), other.insertBatch(t, s, "theirs")
	insertPayments(t, s,
		withExt(b1, "a", disburse.PaymentDraft), withExt(b1, "b", disburse.PaymentDraft),
		withExt(b1, "c", disburse.PaymentDeleted), withExt(b2, "d", disburse.PaymentDraft),
		withExt(b2, "", disburse.PaymentDraft), withExt(theirs, "e", disburse.PaymentDraft))
	query := []string{"a", "c", "d", "e", "z", "a", ""}
	for _, c := range []struct {
		except string
		want   []string
	}{{"", []string{"a", "d"}}, {b2.ID, []string{"a"}}, {b1.ID, []string{"d"}}} {
		got := get(t, s, func(tx disburse.Tx) ([]string, error) { return tx.ExternalIDsInUse(ctx, w.org.ID, query, c.except) })
		same(t, "ExternalIDsInUse except "+c.except, c.want, got)
	}
}

// testInsertTakenExternalIDs: InsertPayments refuses an external id that
// another non-deleted payment of the organisation holds, or that ps holds
// twice, as ErrDuplicate and inserts none of ps (AddPayments relies on it
// rather than asking first).
func testInsertTakenExternalIDs(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	b1, b2, theirs := w.insertBatch(t, s, "1"), w.insertBatch(t, s, "2"), other.insertBatch(t, s, "theirs")
	insertPayments(t, s, withExt(b1, "a", disburse.PaymentDraft), withExt(b1, "gone", disburse.PaymentDeleted),
		withExt(b1, "", disburse.PaymentDraft), withExt(theirs, "theirs", disburse.PaymentDraft))
	for _, c := range []struct {
		name string
		ps   []disburse.Payment
		want error
	}{
		{"held in another batch", []disburse.Payment{withExt(b2, "new", disburse.PaymentDraft), withExt(b2, "a", disburse.PaymentDraft)}, disburse.ErrDuplicate},
		{"held in the same batch", []disburse.Payment{withExt(b1, "a", disburse.PaymentDraft)}, disburse.ErrDuplicate},
		{"twice in one insert", []disburse.Payment{withExt(b2, "twice", disburse.PaymentDraft), withExt(b2, "twice", disburse.PaymentDraft)}, disburse.ErrDuplicate},
		{"held by a deleted payment", []disburse.Payment{withExt(b2, "gone", disburse.PaymentDraft)}, nil},
		{"held by another organisation", []disburse.Payment{withExt(b2, "theirs", disburse.PaymentDraft)}, nil},
		{"none, again", []disburse.Payment{withExt(b2, "", disburse.PaymentDraft), withExt(b2, "", disburse.PaymentDraft)}, nil},
	} {
		before := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
			return tx.Payments(ctx, b2.ID, disburse.PaymentFilter{})
		})
		err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertPayments(ctx, c.ps) })
		if !errors.Is(err, c.want) || (err != nil) != (c.want != nil) {
			t.Errorf("%s: InsertPayments = %v, want %v", c.name, err, c.want)
		}
		after := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
			return tx.Payments(ctx, b2.ID, disburse.PaymentFilter{})
		})
		if added := len(after) - len(before); (err == nil && added != len(c.ps)) || (err != nil && added != 0) {
			t.Errorf("%s: %d payments added, error %v", c.name, added, err)
		}
	}
}

func testUpdatePaymentStates(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "b")
	p := withReferral(payment(b, msisdnKE, 100), msisdnUK, 50)
	p.Firstname, p.ExternalID = "Ann", "x"
	q := payment(b, msisdnKE2, 200)
	insertPayments(t, s, p, q)

	p.Status, p.IsMember, p.SubmittedAt, p.SettledAt = disburse.PaymentSettled, true, at(time.Minute), at(time.Minute)
	p.ReversalDueAt, p.CancelledAt = at(time.Hour), at(2*time.Hour)
	p.ReferralStatus, p.ReferralSettledAt = disburse.PaymentSettled, at(3*time.Minute)
	changed := p
	changed.Firstname, changed.Amount = "not written", 999 // not state: UpdatePaymentStates leaves them
	write(t, s, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, []disburse.Payment{changed}) })
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		return tx.Payments(ctx, b.ID, disburse.PaymentFilter{})
	})
	same(t, "after UpdatePaymentStates", []disburse.Payment{p, q}, got)

	// Back to DRAFT: zero times are written as such.
	p.Status, p.IsMember, p.SubmittedAt, p.SettledAt, p.ReversalDueAt, p.CancelledAt = disburse.PaymentDraft, false, time.Time{}, time.Time{}, time.Time{}, time.Time{}
	p.ReferralStatus, p.ReferralSettledAt = disburse.PaymentDraft, time.Time{}
	write(t, s, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, []disburse.Payment{p}) })
	same(t, "after clearing", p, get(t, s, func(tx disburse.Tx) (disburse.Payment, error) { return tx.Payment(ctx, p.ID) }))

	missing := payment(b, msisdnKE, 100)
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, []disburse.Payment{p, missing}) }); err == nil {
		t.Error("UpdatePaymentStates of a missing payment: no error")
	}
	write(t, s, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, nil) })
}

// testUpdateManyPaymentStates: a write as large as a submit's page, its
// payments in a few states mixed, as a submit or a cancel leaves them (a
// store may write large updates in another form: sqlstore does from 1,000
// payments on).
func testUpdateManyPaymentStates(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "b")
	many := make([]disburse.Payment, 1500)
	for i := range many {
		many[i] = payment(b, msisdnKE, disburse.Money(100+i))
		if i%4 == 0 {
			many[i] = withReferral(many[i], msisdnUK, 10)
		}
	}
	insertPayments(t, s, many...)
	for i := range many {
		m := &many[i]
		switch i % 3 {
		case 0:
			m.Status, m.IsMember, m.SubmittedAt, m.SettledAt = disburse.PaymentSettled, true, at(time.Minute), at(time.Minute)
		case 1:
			m.Status, m.SubmittedAt, m.ReversalDueAt = disburse.PaymentPending, at(time.Minute), at(time.Hour)
		case 2:
			m.Status, m.CancelledAt = disburse.PaymentCancelled, at(2*time.Hour)
		}
		if m.ReferralStatus != "" {
			m.ReferralStatus, m.SubmittedAt, m.ReversalDueAt = disburse.PaymentPending, at(time.Minute), at(time.Hour)
		}
	}
	write(t, s, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, many) })
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		return tx.Payments(ctx, b.ID, disburse.PaymentFilter{})
	})
	same(t, "after UpdatePaymentStates", many, got)

	missing := append(slices.Clone(many), payment(b, msisdnKE, 100))
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.UpdatePaymentStates(ctx, missing) }); err == nil {
		t.Error("UpdatePaymentStates of a missing payment among many: no error")
	}
}

func testDeleteDraftPayments(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b, other := w.insertBatch(t, s, "b"), w.insertBatch(t, s, "other")
	draft := withReferral(payment(b, msisdnKE, 100), msisdnUK, 10)
	plain := payment(b, msisdnKE, 200)
	gone := payment(b, msisdnKE, 300)
	gone.Status = disburse.PaymentDeleted
	kept := payment(other, msisdnKE, 400)
	insertPayments(t, s, draft, plain, gone, kept)
	write(t, s, func(tx disburse.Tx) error { return tx.DeleteDraftPayments(ctx, b.ID) })
	draft.Status, draft.ReferralStatus = disburse.PaymentDeleted, disburse.PaymentDeleted
	plain.Status = disburse.PaymentDeleted
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		return tx.Payments(ctx, b.ID, disburse.PaymentFilter{})
	})
	same(t, "DeleteDraftPayments", []disburse.Payment{draft, plain, gone}, got)
	same(t, "another batch's payment", kept, get(t, s, func(tx disburse.Tx) (disburse.Payment, error) { return tx.Payment(ctx, kept.ID) }))
}

func testInsertMembersLockingLegs(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	b, theirs := w.insertBatch(t, s, "b"), other.insertBatch(t, s, "theirs")
	due := at(time.Hour)
	toHim := pending(payment(b, msisdnKE, 100), due)
	referral := pending(withReferral(payment(b, msisdnUK, 100), msisdnKE, 10), due)
	elsewhere := pending(payment(theirs, msisdnKE, 100), due)
	settled := payment(b, msisdnKE, 100)
	settled.Status, settled.SubmittedAt, settled.SettledAt = disburse.PaymentSettled, t0, t0
	referralSettled := pending(withReferral(payment(b, msisdnUK, 100), msisdnKE, 10), due)
	referralSettled.ReferralStatus, referralSettled.ReferralSettledAt = disburse.PaymentSettled, t0
	stranger := pending(payment(b, msisdnUK2, 100), due)
	draft := payment(b, msisdnKE, 100) // to a non-member: held on PostgreSQL, not pending
	insertPayments(t, s, toHim, settled, referral, stranger, draft, referralSettled, elsewhere)
	him := disburse.Member{Msisdn: msisdnKE, Firstname: "Wanjiru", AppInstalled: true, RegisteredAt: t0}
	var got disburse.NewMembers
	write(t, s, func(tx disburse.Tx) (err error) {
		got, err = tx.InsertMembersLockingLegs(ctx, []disburse.Member{him})
		return err
	})
	same(t, "InsertMembersLockingLegs: inserted", map[string]bool{msisdnKE: true}, got.Inserted)
	same(t, "InsertMembersLockingLegs: member", him, get(t, s, func(tx disburse.Tx) (disburse.Member, error) { return member(tx, msisdnKE) }))
	same(t, "InsertMembersLockingLegs: legs", ids([]disburse.Payment{toHim, referral, elsewhere}), ids(got.Legs))
	same(t, "InsertMembersLockingLegs: a leg as stored", toHim, got.Legs[0])
	same(t, "InsertMembersLockingLegs: organisations", map[string]disburse.Organisation{w.org.ID: w.org, other.org.ID: other.org}, got.Organisations)
	// Several payees at once, one a member already: each payment once,
	// however many of its legs they are paid by, in the order of addition,
	// the member's as well.
	uk := disburse.Member{Msisdn: msisdnUK, Lastname: "Smith", RegisteredAt: at(time.Second)}
	write(t, s, func(tx disburse.Tx) (err error) {
		got, err = tx.InsertMembersLockingLegs(ctx, []disburse.Member{uk, him})
		return err
	})
	same(t, "InsertMembersLockingLegs of two: inserted", map[string]bool{msisdnUK: true}, got.Inserted)
	same(t, "InsertMembersLockingLegs of two: legs", ids([]disburse.Payment{toHim, referral, referralSettled, elsewhere}), ids(got.Legs))
	same(t, "InsertMembersLockingLegs of two: organisations", 2, len(got.Organisations))
	// A payee with nothing pending.
	write(t, s, func(tx disburse.Tx) (err error) {
		got, err = tx.InsertMembersLockingLegs(ctx, []disburse.Member{{Msisdn: msisdnKE2, RegisteredAt: t0}})
		return err
	})
	same(t, "InsertMembersLockingLegs of a payee owed nothing", disburse.NewMembers{Inserted: map[string]bool{msisdnKE2: true},
		Organisations: map[string]disburse.Organisation{}}, got)
}

func testClaimDueLegs(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	early, late := w.insertOpenBatch(t, s, "early", at(time.Hour)), w.insertOpenBatch(t, s, "late", at(2*time.Hour))
	// Submitted by a release before migration 00017: no date of its own.
	undated := w.insertOpenBatch(t, s, "undated", time.Time{})
	draftBatch := w.insertBatch(t, s, "draft")
	lateLeg := pending(payment(late, msisdnKE, 100), at(2*time.Hour))
	lateLeg2 := pending(payment(late, msisdnUK, 100), at(2*time.Hour))
	first := pending(payment(early, msisdnKE, 100), at(time.Hour))
	referralOnly := pending(withReferral(payment(early, msisdnKE, 100), msisdnUK, 10), at(time.Hour))
	referralOnly.Status, referralOnly.SettledAt = disburse.PaymentSettled, t0
	done := pending(payment(early, msisdnKE, 100), at(time.Hour))
	done.Status, done.CancelledAt = disburse.PaymentCancelled, at(time.Hour)
	undatedLeg := pending(payment(undated, msisdnKE, 100), at(4*time.Hour))
	draft := payment(draftBatch, msisdnKE, 100) // to a non-member: held on PostgreSQL, never due
	insertPayments(t, s, lateLeg, first, done, referralOnly, lateLeg2, undatedLeg, draft)
	for _, c := range []struct {
		name  string
		now   time.Time
		limit int
		want  []disburse.Payment
	}{
		{"nothing due yet", at(time.Hour - time.Microsecond), 10, nil},
		{"one batch due", at(time.Hour), 10, []disburse.Payment{first, referralOnly}},
		{"in the batches' date order, each in the order of addition", at(3 * time.Hour), 10, []disburse.Payment{first, referralOnly, lateLeg, lateLeg2}},
		{"limit", at(3 * time.Hour), 2, []disburse.Payment{first, referralOnly}},
		{"limit across batches", at(3 * time.Hour), 3, []disburse.Payment{first, referralOnly, lateLeg}},
	} {
		var got []disburse.Payment
		write(t, s, func(tx disburse.Tx) (err error) { got, err = tx.ClaimDueLegs(ctx, c.now, c.limit); return err })
		same(t, "ClaimDueLegs "+c.name, ids(c.want), ids(got))
	}
	// The undated batch counts once its first leg is due; where it comes
	// in the order is the engine's (NULL sorts first on SQLite).
	var got []disburse.Payment
	write(t, s, func(tx disburse.Tx) (err error) { got, err = tx.ClaimDueLegs(ctx, at(4*time.Hour), 10); return err })
	same(t, "ClaimDueLegs with an undated batch due", slices.Sorted(slices.Values(ids([]disburse.Payment{first, referralOnly, lateLeg, lateLeg2, undatedLeg}))),
		slices.Sorted(slices.Values(ids(got))))
}

// testPaymentsAfterPages: PaymentsAfter pages through one batch in the
// order of addition, every status included, from the payment after; a
// payment of another batch starts nothing; and two pages in one
// transaction both read (PostgreSQL's cursor is closed after each).
func testPaymentsAfterPages(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b, other := w.insertBatch(t, s, "paged"), w.insertBatch(t, s, "other")
	var ps []disburse.Payment
	for i := range 7 {
		p := payment(b, msisdnKE, disburse.Money(100+i))
		switch i % 3 {
		case 1:
			p = pending(withReferral(p, msisdnUK, 50), at(time.Hour))
		case 2:
			p.Status = disburse.PaymentDeleted
		}
		ps = append(ps, p)
	}
	insertPayments(t, s, ps[:4]...)
	insertPayments(t, s, payment(other, msisdnKE, 100))
	insertPayments(t, s, ps[4:]...)
	page := func(after string, n int) []disburse.Payment {
		return get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) { return tx.PaymentsAfter(ctx, b.ID, after, n) })
	}
	same(t, "first page, whole payments", ps[:3], page("", 3))
	same(t, "second page", ids(ps[3:6]), ids(page(ps[2].ID, 3)))
	same(t, "last page, short", ids(ps[6:]), ids(page(ps[5].ID, 3)))
	same(t, "after the last", 0, len(page(ps[6].ID, 3)))
	same(t, "after another batch's payment", 0, len(page(get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		return tx.PaymentsAfter(ctx, other.ID, "", 1)
	})[0].ID, 3)))
	both := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) {
		first, err := tx.PaymentsAfter(ctx, b.ID, "", 4)
		if err != nil {
			return nil, err
		}
		rest, err := tx.PaymentsAfter(ctx, b.ID, first[len(first)-1].ID, 4)
		return append(first, rest...), err
	})
	same(t, "two pages in one transaction", ids(ps), ids(both))
}

// testPagesReadEveryColumn: a page reads every column of its payments as
// stored, NULLs included, as a payment's own read does, whether a value
// repeats the row before's or not (PostgreSQL reads a page's values
// itself, keeping each column's last string).
func testPagesReadEveryColumn(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "every column")
	named := payment(b, msisdnKE, 150)
	named.Firstname, named.Lastname, named.ExternalID, named.IsMember = "Wanjiru", "Kamau", "inv-7", true
	unnamed := payment(b, msisdnKE, 150)
	unnamed.ExternalID = "inv-8"
	settled := withReferral(payment(b, msisdnUK, disburse.Money(1)<<40), msisdnKE, 75)
	settled.Status, settled.SubmittedAt, settled.SettledAt, settled.IsMember = disburse.PaymentSettled, at(time.Minute), at(2*time.Minute), true
	settled.ReferralStatus, settled.ReferralSettledAt = disburse.PaymentSettled, at(3*time.Minute)
	cancelled := pending(payment(b, msisdnUK, 99), at(time.Hour))
	cancelled.Status, cancelled.CancelledAt = disburse.PaymentCancelled, at(2*time.Hour)
	ps := []disburse.Payment{named, unnamed, settled, pending(withReferral(payment(b, msisdnKE, 5), msisdnUK, 6), at(time.Hour)), cancelled, named}
	ps[5].ID, ps[5].ExternalID = disburse.NewID(), "inv-9"
	insertPayments(t, s, ps...)
	page := get(t, s, func(tx disburse.Tx) ([]disburse.Payment, error) { return tx.PaymentsAfter(ctx, b.ID, "", len(ps)) })
	same(t, "a page of every kind of payment", ps, page)
	for i, p := range ps {
		same(t, fmt.Sprintf("payment %d read alone", i), p, get(t, s, func(tx disburse.Tx) (disburse.Payment, error) { return tx.Payment(ctx, p.ID) }))
	}
}

// allReady is a ready function of n rows all ready at once.
func allReady(n int) func() (int, error) { return func() (int, error) { return n, nil } }
