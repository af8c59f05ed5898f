package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testBatch(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.batch("payroll", t0)
	b.ExternalID = "ext-1"
	write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(ctx, b) })
	same(t, "Batch", b, get(t, s, func(tx disburse.Tx) (disburse.Batch, error) { return tx.Batch(ctx, b.ID) }))

	// Every mutable field, the whole summary included.
	b.Name, b.ExternalID, b.Status = "renamed", "ext-2", disburse.BatchClosed
	b.SubmittedAt, b.ClosedAt = at(time.Minute), at(time.Hour)
	b.Summary = disburse.Summary{PaymentsAmount: 1, PaymentsCount: 2, ReferralsAmount: 3, DraftAmount: 4, DraftCount: 5,
		PendingAmount: 6, PendingCount: 7, SettledAmount: 8, SettledCount: 9, CancelledAmount: 10, CancelledCount: 11, HeldAmount: 12}
	var locked disburse.Batch
	write(t, s, func(tx disburse.Tx) (err error) {
		if locked, err = tx.LockBatch(ctx, b.ID); err != nil {
			return err
		}
		return tx.UpdateBatch(ctx, b)
	})
	if locked.Status != disburse.BatchDraft {
		t.Errorf("LockBatch status = %s, want DRAFT", locked.Status)
	}
	same(t, "updated Batch", b, get(t, s, func(tx disburse.Tx) (disburse.Batch, error) { return tx.Batch(ctx, b.ID) }))
	b2 := w.batch("second", t0)
	write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(ctx, b2) })
	same(t, "BatchesByID", map[string]disburse.Batch{b.ID: b, b2.ID: b2},
		get(t, s, func(tx disburse.Tx) (map[string]disburse.Batch, error) {
			return tx.BatchesByID(ctx, []string{b2.ID, disburse.NewID(), b.ID, b2.ID})
		}))

	missing := disburse.NewID()
	notFound(t, s, "Batch", func(tx disburse.Tx) error { _, err := tx.Batch(ctx, missing); return err })
	for name, fn := range map[string]func(disburse.Tx) error{
		"LockBatch":   func(tx disburse.Tx) error { _, err := tx.LockBatch(ctx, missing); return err },
		"UpdateBatch": func(tx disburse.Tx) error { m := b; m.ID = missing; return tx.UpdateBatch(ctx, m) },
		"AddToSummaries": func(tx disburse.Tx) error {
			_, err := tx.AddToSummaries(ctx, []string{b.ID, missing}, make([]disburse.Summary, 2))
			return err
		},
	} {
		if err := s.Write(ctx, fn); err == nil {
			t.Errorf("%s of a missing batch: no error", name)
		}
	}
}

// testAddToSummaries: each change is added, field by field, to its own
// batch, and the batches come back as stored, in the order asked.
func testAddToSummaries(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	one, two := w.batch("one", t0), w.batch("two", t0)
	one.Summary = disburse.Summary{PaymentsAmount: 100, PaymentsCount: 10, ReferralsAmount: 5, DraftAmount: 0, DraftCount: 0,
		PendingAmount: 60, PendingCount: 6, SettledAmount: 40, SettledCount: 4, CancelledAmount: 0, CancelledCount: 0, HeldAmount: 65}
	two.Summary = disburse.Summary{PaymentsAmount: 7, PaymentsCount: 1, PendingAmount: 7, PendingCount: 1, HeldAmount: 7}
	write(t, s, func(tx disburse.Tx) error {
		if err := tx.InsertBatch(ctx, one); err != nil {
			return err
		}
		return tx.InsertBatch(ctx, two)
	})
	settleOne := disburse.Summary{PendingAmount: -10, PendingCount: -1, SettledAmount: 10, SettledCount: 1, HeldAmount: -15}
	reverseTwo := disburse.Summary{PendingAmount: -7, PendingCount: -1, CancelledAmount: 7, CancelledCount: 1, HeldAmount: -7}
	var got []disburse.Batch
	write(t, s, func(tx disburse.Tx) (err error) {
		got, err = tx.AddToSummaries(ctx, []string{two.ID, one.ID}, []disburse.Summary{reverseTwo, settleOne})
		return err
	})
	one.Summary = disburse.Summary{PaymentsAmount: 100, PaymentsCount: 10, ReferralsAmount: 5,
		PendingAmount: 50, PendingCount: 5, SettledAmount: 50, SettledCount: 5, HeldAmount: 50}
	two.Summary = disburse.Summary{PaymentsAmount: 7, PaymentsCount: 1, CancelledAmount: 7, CancelledCount: 1}
	same(t, "AddToSummaries", []disburse.Batch{two, one}, got)
	same(t, "stored", one, get(t, s, func(tx disburse.Tx) (disburse.Batch, error) { return tx.Batch(ctx, one.ID) }))
}

func testBatches(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	// Two batches share a creation time: the later id (UUIDv7) comes first.
	old := w.batch("old", t0)
	tieA := w.batch("tieA", at(time.Hour))
	tieB := w.batch("tieB", at(time.Hour))
	newest := w.batch("newest", at(2*time.Hour))
	newest.Status, newest.SubmittedAt, newest.ExternalID = disburse.BatchOpen, at(2*time.Hour), "x"
	old.ExternalID = "x"
	write(t, s, func(tx disburse.Tx) error {
		for _, b := range []disburse.Batch{tieB, old, newest, tieA, other.batch("theirs", at(3*time.Hour))} {
			if err := tx.InsertBatch(ctx, b); err != nil {
				return err
			}
		}
		return nil
	})
	for _, c := range []struct {
		name   string
		filter disburse.BatchFilter
		want   []disburse.Batch
	}{
		{"all", disburse.BatchFilter{Take: 1000}, []disburse.Batch{newest, tieB, tieA, old}},
		{"no take", disburse.BatchFilter{}, []disburse.Batch{newest, tieB, tieA, old}},
		{"page", disburse.BatchFilter{Skip: 1, Take: 2}, []disburse.Batch{tieB, tieA}},
		{"past the end", disburse.BatchFilter{Skip: 4, Take: 2}, nil},
		{"status", disburse.BatchFilter{Status: disburse.BatchDraft, Take: 1000}, []disburse.Batch{tieB, tieA, old}},
		{"external id", disburse.BatchFilter{ExternalID: "x", Take: 1000}, []disburse.Batch{newest, old}},
		{"both", disburse.BatchFilter{ExternalID: "x", Status: disburse.BatchOpen, Take: 1000}, []disburse.Batch{newest}},
	} {
		got := get(t, s, func(tx disburse.Tx) ([]disburse.Batch, error) { return tx.Batches(ctx, w.org.ID, c.filter) })
		same(t, "Batches "+c.name, c.want, got)
	}
}
