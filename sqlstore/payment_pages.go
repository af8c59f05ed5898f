package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"github.com/disburse/disburse"
)

// PaymentPages reads a batch's payments in pages without the engine ever
// reading or sorting the whole rest of the batch for one page. A keyset
// query per page ("after this seq, the next size, in seq order") is that
// on SQLite, whose planner always walks the (batch_id, seq) index for it.
// PostgreSQL's planner, without statistics on payments (a table just
// filled, before autovacuum analysed it), guessed a few hundred rows per
// batch and answered each page by fetching every later payment of the
// batch and sorting them, for every page: quadratic in the batch. So on
// an engine with cursors the query runs once, and its rows are fetched a
// page at a time. Every page is read into the same
// slice: a new one per page was most of a submit's memory clearing and
// garbage (fn may not keep its page, store.go says).
func (t *tx) PaymentPages(ctx context.Context, batchID string, status disburse.PaymentStatus, size int, fn func([]disburse.Payment) error) error {
	where, args := `p.batch_id = ?`, []any{batchID}
	if status != "" {
		where, args = where+` AND p.status = ?`, append(args, string(status))
	}
	var err error
	buf := make([]disburse.Payment, 0, size)
	if _, ok := t.d.(Cursors); ok {
		err = t.cursorPages(ctx, buf, where, args, size, fn)
	} else {
		err = t.keysetPages(ctx, buf, where, args, size, fn)
	}
	if err != nil {
		return fmt.Errorf("payment pages: %w", err)
	}
	return nil
}

// paymentCursor is the one cursor a transaction opens at a time.
const paymentCursor = "payment_pages"

func (t *tx) cursorPages(ctx context.Context, buf []disburse.Payment, where string, args []any, size int, fn func([]disburse.Payment) error) error {
	_, err := t.exec(ctx, `DECLARE `+paymentCursor+` NO SCROLL CURSOR FOR SELECT `+paymentColumns+
		` FROM payments p WHERE `+where+` ORDER BY p.seq`, args...)
	if err != nil {
		return err
	}
	fetch := fmt.Sprintf(`FETCH FORWARD %d FROM %s`, size, paymentCursor)
	for {
		page, err := t.page(ctx, buf, fetch)
		if err != nil {
			return err
		}
		full := len(page) == size // before fn, which may change page
		if len(page) > 0 {
			if err := fn(page); err != nil {
				return err
			}
		}
		if !full {
			break
		}
	}
	_, err = t.exec(ctx, `CLOSE `+paymentCursor)
	return err
}

func (t *tx) keysetPages(ctx context.Context, buf []disburse.Payment, where string, args []any, size int, fn func([]disburse.Payment) error) error {
	query := `SELECT ` + paymentColumns + ` FROM payments p WHERE ` + where
	next, nextArgs := query+` ORDER BY p.seq LIMIT ?`, append(slices.Clip(args), size)
	for {
		page, err := t.page(ctx, buf, next, nextArgs...)
		if err != nil || len(page) == 0 {
			return err
		}
		full, last := len(page) == size, page[len(page)-1].ID // before fn, which may change page
		if err := fn(page); err != nil {
			return err
		}
		if !full {
			return nil
		}
		next = query + ` AND p.seq > (SELECT seq FROM payments WHERE id = ?) ORDER BY p.seq LIMIT ?`
		nextArgs = append(slices.Clip(args), last, size)
	}
}

// page reads the payments of query into buf's memory.
func (t *tx) page(ctx context.Context, buf []disburse.Payment, query string, args ...any) ([]disburse.Payment, error) {
	rows, err := t.query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return collect("payments", rows, buf[:0], scanRowPayment)
}
