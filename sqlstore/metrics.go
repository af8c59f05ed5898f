package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

// OperatorGauges runs one aggregate query a table. The outbox queries read
// every row of their table (a GROUP BY status): a scrape's cost follows the
// table's size (docs/operations.md, "Monitoring").
func (t *tx) OperatorGauges(ctx context.Context, now time.Time) (disburse.OperatorGauges, error) {
	var g disburse.OperatorGauges
	var err error
	if g.Notifications, err = t.outbox(ctx, "notifications"); err != nil {
		return g, err
	}
	if g.WebhookDeliveries, err = t.outbox(ctx, "webhook_deliveries"); err != nil {
		return g, err
	}
	if err := t.queryRow(ctx, `SELECT COUNT(*) FROM tokens WHERE expires_at > ?`, micros(now)).Scan(&g.LiveTokens); err != nil {
		return g, fmt.Errorf("count tokens: %w", err)
	}
	if err := t.queryRow(ctx, `SELECT COUNT(*) FROM api_keys WHERE revoked_at IS NULL`).Scan(&g.ActiveAPIKeys); err != nil {
		return g, fmt.Errorf("count api keys: %w", err)
	}
	return g, nil
}

// outbox counts table's rows by status, with its oldest PENDING row's
// creation time; table is one of the two outboxes, never client input.
func (t *tx) outbox(ctx context.Context, table string) (disburse.Outbox, error) {
	o := disburse.Outbox{ByStatus: map[string]int64{}}
	rows, err := t.query(ctx, `SELECT status, COUNT(*), MIN(created_at) FROM `+table+` GROUP BY status`)
	if err != nil {
		return o, fmt.Errorf("count %s: %w", table, err)
	}
	defer rows.Close()
	for rows.Next() {
		var status string
		var n int64
		var oldest time.Time
		if err := rows.Scan(&status, &n, at(&oldest)); err != nil {
			return o, fmt.Errorf("count %s: %w", table, err)
		}
		o.ByStatus[status] = n
		if status == "PENDING" {
			o.OldestPending = oldest
		}
	}
	if err := rows.Err(); err != nil {
		return o, fmt.Errorf("count %s: %w", table, err)
	}
	return o, nil
}
