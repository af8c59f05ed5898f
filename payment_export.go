package disburse

import (
	"context"
	"slices"
)

// ExportPayments calls visit with the batch's non-deleted payments in the
// order they were added, PageSize at a time: a batch's results as its
// export gives them (docs/api.md section 4.4). Each page is read in a
// read transaction of its own, from where the page before ended, so that
// an export held up by a client that reads slowly holds no transaction or
// connection while it waits, and memory follows a page, not the batch.
// A batch that changes meanwhile still gives each payment once, as it was
// when its page was read. visit may keep its page. ctx ends the export at
// the next page: a client that hangs up stops the reads.
func (s *Service) ExportPayments(ctx context.Context, organisationID, batchID string, visit func([]Payment) error) error {
	size, after := s.pageSize(), ""
	for {
		var page []Payment
		err := s.Store.Read(ctx, func(tx Tx) error {
			if after == "" { // the first page: the batch must be the organisation's
				if _, err := ownBatch(ctx, tx, organisationID, batchID, false); err != nil {
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
		page = slices.DeleteFunc(page, func(p Payment) bool { return p.Status == PaymentDeleted })
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
