// Package approvals reads an organisation's approvals (docs/api.md
// section 4.3). Requesting, approving, rejecting and withdrawing one are
// the domain's (approval.go in package disburse): each runs in the money
// transaction of its batch. What is here only reads, through the
// domain's store, each call in one read transaction.
package approvals

import (
	"context"
	"slices"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/txvalue"
)

// Get returns one of the organisation's approvals; another
// organisation's is not found.
func Get(ctx context.Context, store disburse.Store, organisationID, id string) (disburse.Approval, error) {
	return txvalue.Read(ctx, store.Read, func(tx disburse.Tx) (disburse.Approval, error) {
		return disburse.OwnApproval(ctx, tx, organisationID, id)
	})
}

// Query is the raw query of GET /approvals: status, skip and take, or
// in a keyset page its After (docs/versioning.md).
type Query struct {
	Status, Skip, Take string
	Keyset             bool   // as disburse.ListQuery's
	After              string // as disburse.ListQuery's
}

// List lists the organisation's approvals, newest first, paged as every
// list of the API is.
func List(ctx context.Context, store disburse.Store, organisationID string, q Query) ([]disburse.Approval, error) {
	var v disburse.Validation
	var f disburse.ApprovalFilter
	f.Skip, f.Take, f.After = disburse.KeysetPaging(&v, disburse.ListQuery{Skip: q.Skip, Take: q.Take, Keyset: q.Keyset, After: q.After})
	if q.Status != "" {
		if !slices.Contains(disburse.ApprovalStatuses(), disburse.ApprovalStatus(q.Status)) {
			v.Add(-1, "Status", q.Status, "status must be one of PENDING, APPROVED, REJECTED, CANCELLED")
		}
		f.Status = disburse.ApprovalStatus(q.Status)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return txvalue.Read(ctx, store.Read, func(tx disburse.Tx) ([]disburse.Approval, error) {
		return tx.Approvals(ctx, organisationID, f)
	})
}

// Batches returns the organisation's batches of approvals, by id, in one
// read: the portal's list names each approval's batch.
func Batches(ctx context.Context, store disburse.Store, organisationID string, approvals []disburse.Approval) (map[string]disburse.Batch, error) {
	ids := make([]string, len(approvals))
	for i, a := range approvals {
		ids[i] = a.BatchID
	}
	return txvalue.Read(ctx, store.Read, func(tx disburse.Tx) (map[string]disburse.Batch, error) {
		batches, err := tx.BatchesByID(ctx, ids)
		for id, b := range batches {
			if b.OrganisationID != organisationID {
				delete(batches, id)
			}
		}
		return batches, err
	})
}
