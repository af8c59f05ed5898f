package sqlstore

import (
	"context"
	"fmt"

	"github.com/disburse/disburse"
)

// PaymentPages reads a batch's payments in pages the engine's way (a
// keyset query per page on SQLite, one cursor on PostgreSQL), so that
// neither engine reads or sorts the whole rest of the batch for one page.
// Every page is read into the same slice: a new one per page was most of
// a submit's memory clearing and garbage (fn may not keep its page,
// store.go says).
func (t *tx) PaymentPages(ctx context.Context, batchID string, status disburse.PaymentStatus, size int, fn func([]disburse.Payment) error) error {
	query, args := `SELECT `+paymentColumns+` FROM payments p WHERE p.batch_id = ?`, []any{batchID}
	if status != "" {
		query, args = query+` AND p.status = ?`, append(args, string(status))
	}
	buf := make([]disburse.Payment, 0, size)
	var page []disburse.Payment
	read := func(rows Rows) (n int, last string, err error) {
		if page, err = collect("payments", rows, buf[:0], scanPagePayment); err != nil || len(page) == 0 {
			return 0, "", err
		}
		return len(page), page[len(page)-1].ID, nil
	}
	err := t.e.PaymentPages(ctx, Conn{t}, &PaymentPagesParams{Query: query, Args: args, Size: size, Read: read, Use: func() error {
		if len(page) == 0 {
			return nil
		}
		return fn(page)
	}})
	if err != nil {
		return fmt.Errorf("payment pages: %w", err)
	}
	return nil
}
