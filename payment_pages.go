package disburse

import (
	"context"
	"slices"
)

// PaymentPages calls visit with a batch's non-deleted payments in the order
// they were added, PageSize at a time, all from one read: a submit's answer
// streams up to a million payments this way without holding them.
func (s *Service) PaymentPages(ctx context.Context, organisationID, batchID string, visit func([]Payment) error) error {
	return s.Store.Read(ctx, func(tx Tx) error {
		if _, err := ownBatch(ctx, tx, organisationID, batchID, false); err != nil {
			return err
		}
		return tx.PaymentPages(ctx, batchID, "", s.pageSize(), func(page []Payment) error {
			page = slices.DeleteFunc(page, func(p Payment) bool { return p.Status == PaymentDeleted })
			if len(page) == 0 {
				return nil
			}
			return visit(page)
		})
	})
}
