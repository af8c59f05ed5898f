package sqlstore

import (
	"context"
	"errors"
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
	read := func(rows PageRows) (n int, last string, err error) {
		if page, err = collect("payments", rows, buf[:0], scanPagePayment); err != nil || len(page) == 0 {
			return 0, "", err
		}
		return len(page), page[len(page)-1].ID, nil
	}
	err := t.e.PaymentPages(ctx, Conn{t: t}, &PaymentPagesParams{Query: query, Args: args, Size: size, Read: read, Use: func() error {
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

// PaymentsAfter reads one page from the seq of the payment after by the
// (batch_id, seq) index: no OFFSET, so the last page of a million costs
// what the first does. The page is the engine's first page of
// PaymentPages: a plain LIMIT of thousands, without statistics, was
// planned on PostgreSQL as a scan and sort of the rest of the batch
// (docs/benchmarks.md, "The export's pages").
func (t *tx) PaymentsAfter(ctx context.Context, batchID, after string, n int) ([]disburse.Payment, error) {
	if n <= 0 {
		return nil, errors.New("payments after: the page size must be positive")
	}
	query, args := `SELECT `+paymentColumns+` FROM payments p WHERE p.batch_id = ?`, []any{batchID}
	if after != "" {
		query, args = query+` AND p.seq > (SELECT a.seq FROM payments a WHERE a.id = ? AND a.batch_id = ?)`, append(args, after, batchID)
	}
	var page []disburse.Payment
	read := func(rows PageRows) (int, string, error) {
		var err error
		if page, err = collect("payments after", rows, make([]disburse.Payment, 0, n), scanPagePayment); err != nil || len(page) == 0 {
			page = nil // none: nil, as every list of the store
			return 0, "", err
		}
		return len(page), page[len(page)-1].ID, nil
	}
	err := t.e.PaymentPages(ctx, Conn{t: t}, &PaymentPagesParams{Query: query, Args: args, Size: n, Read: read,
		Use: func() error { return nil }, OnePage: true})
	if err != nil {
		return nil, fmt.Errorf("payments after: %w", err)
	}
	return page, nil
}
