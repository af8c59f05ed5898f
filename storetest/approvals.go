package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// pendingApproval returns a new PENDING approval of b, requested at
// t0+d, not yet stored.
func pendingApproval(b disburse.Batch, d time.Duration) disburse.Approval {
	return disburse.Approval{ID: disburse.NewID(), OrganisationID: b.OrganisationID, BatchID: b.ID, Status: disburse.ApprovalPending,
		RequestedBy: disburse.Actor{Type: disburse.ActorAPIKey, ID: disburse.NewID(), Name: "dak_abcdef"}, RequestedAt: at(d),
		PaymentsCount: 3, PaymentsAmount: 12_34, ReferralsAmount: 56}
}

// testApproval: an approval reads back as written, a batch holds its id,
// and a decision writes every field it changes.
func testApproval(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "held")
	a := pendingApproval(b, 0)
	b.ApprovalID = a.ID
	write(t, s, func(tx disburse.Tx) error {
		return errors.Join(tx.InsertApproval(ctx, a), tx.UpdateBatch(ctx, b))
	})
	same(t, "Approval", a, get(t, s, func(tx disburse.Tx) (disburse.Approval, error) { return tx.Approval(ctx, a.ID) }))
	same(t, "held Batch", b, get(t, s, func(tx disburse.Tx) (disburse.Batch, error) { return tx.Batch(ctx, b.ID) }))

	a.Status, a.DecidedAt, a.Comment = disburse.ApprovalApproved, at(time.Hour), "Looks right: ✓ \"ok\""
	a.DecidedBy = disburse.Actor{Type: disburse.ActorPortalUser, ID: disburse.NewID(), Name: "approver@example.org"}
	b.ApprovalID = ""
	var locked disburse.Approval
	write(t, s, func(tx disburse.Tx) (err error) {
		if locked, err = tx.LockApproval(ctx, a.ID); err != nil {
			return err
		}
		return errors.Join(tx.UpdateApproval(ctx, a), tx.UpdateBatch(ctx, b))
	})
	if locked.Status != disburse.ApprovalPending {
		t.Errorf("LockApproval status = %s, want PENDING", locked.Status)
	}
	same(t, "decided Approval", a, get(t, s, func(tx disburse.Tx) (disburse.Approval, error) { return tx.Approval(ctx, a.ID) }))
	same(t, "freed Batch", b, get(t, s, func(tx disburse.Tx) (disburse.Batch, error) { return tx.Batch(ctx, b.ID) }))

	missing := disburse.NewID()
	notFound(t, s, "Approval", func(tx disburse.Tx) error { _, err := tx.Approval(ctx, missing); return err })
	for name, fn := range map[string]func(disburse.Tx) error{
		"LockApproval":   func(tx disburse.Tx) error { _, err := tx.LockApproval(ctx, missing); return err },
		"UpdateApproval": func(tx disburse.Tx) error { m := a; m.ID = missing; return tx.UpdateApproval(ctx, m) },
	} {
		if err := s.Write(ctx, fn); !errors.Is(err, disburse.ErrNotFound) {
			t.Errorf("%s of a missing approval: %v, want ErrNotFound", name, err)
		}
	}
	// A batch that is not DRAFT holds no approval (a CHECK of both engines).
	b.ApprovalID, b.Status, b.SubmittedAt, b.ClosedAt = a.ID, disburse.BatchClosed, t0, t0
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.UpdateBatch(ctx, b) }); err == nil {
		t.Error("a CLOSED batch took an approval id")
	}
}

// testOnePendingApprovalABatch: a batch has one PENDING approval at most;
// once it is decided, another may be requested.
func testOnePendingApprovalABatch(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "b")
	first := pendingApproval(b, 0)
	write(t, s, func(tx disburse.Tx) error { return tx.InsertApproval(ctx, first) })
	err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertApproval(ctx, pendingApproval(b, time.Minute)) })
	if !errors.Is(err, disburse.ErrDuplicate) {
		t.Fatalf("a second PENDING approval of one batch: %v, want ErrDuplicate", err)
	}
	first.Status, first.DecidedAt, first.DecidedBy = disburse.ApprovalRejected, at(time.Minute), first.RequestedBy
	write(t, s, func(tx disburse.Tx) error { return tx.UpdateApproval(ctx, first) })
	write(t, s, func(tx disburse.Tx) error { return tx.InsertApproval(ctx, pendingApproval(b, 2*time.Minute)) })
}

// testApprovals: an organisation's approvals, newest first, ties by id,
// narrowed by status and paged; never another organisation's.
func testApprovals(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	var all []disburse.Approval // newest first
	for i := range 5 {
		a := pendingApproval(w.insertBatch(t, s, "b"), time.Duration(5-i)*time.Minute)
		if i == 4 {
			a.RequestedAt = all[3].RequestedAt // a tie: the greater id first
			if a.ID < all[3].ID {
				t.Fatal("UUIDv7 ids are made in order")
			}
			all[3], a = a, all[3]
		}
		if i%2 == 1 {
			a.Status, a.DecidedAt, a.DecidedBy = disburse.ApprovalApproved, at(time.Hour), a.RequestedBy
		}
		all = append(all, a)
	}
	theirs := pendingApproval(other.insertBatch(t, s, "theirs"), 10*time.Minute)
	write(t, s, func(tx disburse.Tx) error {
		for _, a := range append(all, theirs) {
			if err := tx.InsertApproval(ctx, a); err != nil {
				return err
			}
		}
		return nil
	})
	var approved, pendings []disburse.Approval
	for _, a := range all {
		if a.Status == disburse.ApprovalApproved {
			approved = append(approved, a)
		} else {
			pendings = append(pendings, a)
		}
	}
	for _, c := range []struct {
		name   string
		filter disburse.ApprovalFilter
		want   []disburse.Approval
	}{
		{"all", disburse.ApprovalFilter{}, all},
		{"page", disburse.ApprovalFilter{Skip: 1, Take: 2}, all[1:3]},
		{"pending", disburse.ApprovalFilter{Status: disburse.ApprovalPending}, pendings},
		{"approved, skipped", disburse.ApprovalFilter{Status: disburse.ApprovalApproved, Skip: 1}, approved[1:]},
		{"none", disburse.ApprovalFilter{Status: disburse.ApprovalCancelled}, nil},
	} {
		same(t, "Approvals "+c.name, c.want, get(t, s, func(tx disburse.Tx) ([]disburse.Approval, error) {
			return tx.Approvals(ctx, w.org.ID, c.filter)
		}))
	}
}
