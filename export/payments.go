// Package export reads a batch's results for its CSV file (docs/api.md
// section 4.4), which the API and the portal serve: a page at a time, each
// in a read transaction of the domain's store of its own.
package export

import (
	"context"
	"slices"

	"github.com/disburse/disburse"
)

// Payments calls visit with the batch's non-deleted payments in the
// order they were added, svc.PageSize at a time: a batch's results as its
// export gives them (docs/api.md section 4.4). Each page is read in a
// read transaction of its own, from where the page before ended, so that
// an export held up by a client that reads slowly holds no transaction or
// connection while it waits, and memory follows a page, not the batch.
// A batch that changes meanwhile still gives each payment once, as it was
// when its page was read. visit may keep its page. ctx ends the export at
// the next page: a client that hangs up stops the reads.
func Payments(ctx context.Context, svc *disburse.Service, organisationID, batchID string, visit func([]disburse.Payment) error) error {
	size, after := svc.PageSize, ""
	if size <= 0 {
		size = disburse.DefaultPageSize
	}
	for {
		var page []disburse.Payment
		err := svc.Store.Read(ctx, func(tx disburse.Tx) error {
			if after == "" { // the first page: the batch must be the organisation's
				if _, err := disburse.OwnBatch(ctx, tx, organisationID, batchID); err != nil {
					return err
				}
			}
			var err error
			page, err = tx.PaymentsAfter(ctx, batchID, after, size)
			return err
		})
		if err != nil || len(page) == 0 {
			return err
		}
		last := len(page) < size
		after = page[len(page)-1].ID
		page = slices.DeleteFunc(page, func(p disburse.Payment) bool { return p.Status == disburse.PaymentDeleted })
		if len(page) > 0 {
			if err := visit(page); err != nil {
				return err
			}
		}
		if last {
			return nil
		}
	}
}
