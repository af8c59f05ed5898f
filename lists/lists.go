// Package lists answers the API's lists of an organisation's batches, of a
// batch's payments (docs/api.md section 4) and of the outbox (section 7):
// each validates its query and reads in one read transaction of the
// domain's store, paged as every list of the API is (disburse.KeysetPaging).
// Nothing here writes; the use cases that change batches and payments are
// the domain's (package disburse).
package lists

import (
	"context"
	"slices"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/text"
	"github.com/disburse/disburse/internal/txvalue"
)

// Batches lists the organisation's batches, newest first.
func Batches(ctx context.Context, s *disburse.Service, organisationID string, q disburse.ListQuery) ([]disburse.Batch, error) {
	var v disburse.Validation
	f := disburse.BatchFilter{ExternalID: q.ExternalID}
	f.Skip, f.Take, f.After = disburse.KeysetPaging(&v, q)
	v.Text(-1, "ExternalId", q.ExternalID)
	if q.StatusCode != "" {
		if !validStatus(q.StatusCode, disburse.BatchStatuses()) {
			v.Add(-1, "StatusCode", q.StatusCode, "statusCode must be one of DRAFT, OPEN, CLOSED, CANCELLED")
		}
		f.Status = disburse.BatchStatus(q.StatusCode)
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	return txvalue.Read(ctx, s.Store.Read, func(tx disburse.Tx) ([]disburse.Batch, error) { return tx.Batches(ctx, organisationID, f) })
}

// Payments lists a batch's payments in the order they were added.
func Payments(ctx context.Context, s *disburse.Service, organisationID, batchID string, q disburse.ListQuery) ([]disburse.Payment, error) {
	var v disburse.Validation
	var f disburse.PaymentFilter
	f.Skip, f.Take, f.After = disburse.KeysetPaging(&v, q)
	if q.StatusCode != "" {
		if !validStatus(q.StatusCode, disburse.PaymentStatuses()) {
			v.Add(-1, "StatusCode", q.StatusCode, "statusCode must be one of DRAFT, PENDING, CANCELLED, SETTLED, DELETED")
		}
		f.Status = disburse.PaymentStatus(q.StatusCode)
	}
	var list []disburse.Payment
	err := s.Store.Read(ctx, func(tx disburse.Tx) error {
		if _, err := disburse.OwnBatch(ctx, tx, organisationID, batchID); err != nil {
			return err
		}
		if err := v.Err(); err != nil {
			return err
		}
		var err error
		list, err = tx.Payments(ctx, batchID, f)
		return err
	})
	return list, err
}

// Notifications lists the outbox, only recipient's when it is given.
func Notifications(ctx context.Context, s *disburse.Service, recipient string) ([]disburse.Notification, error) {
	if !text.Valid(recipient) {
		return nil, disburse.Invalid("Recipient", recipient, disburse.TextMessage("recipient"))
	}
	return txvalue.Read(ctx, s.Store.Read, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, recipient) })
}

// validStatus reports whether s names a status in list.
func validStatus[S ~string](s string, list []S) bool {
	return slices.Contains(list, S(s))
}
