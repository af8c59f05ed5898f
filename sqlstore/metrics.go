package sqlstore

import (
	"context"
	"fmt"
	"time"
)

// OperatorGauges is what the operator's metrics show, read at scrape time:
// nothing in it names an organisation, payee or id.
type OperatorGauges struct {
	Notifications     Outbox
	WebhookDeliveries Outbox
	LiveTokens        int64
	ActiveAPIKeys     int64
}

// Outbox is a table of messages to deliver: how many rows are in each
// status, and when the oldest PENDING one was created (zero: none pending).
type Outbox struct {
	ByStatus      map[string]int64
	OldestPending time.Time
}

// OperatorGauges counts notifications and webhook deliveries by status,
// with the creation time of the oldest PENDING one of each, the tokens
// that have not expired at now, and the API keys not revoked, in one
// read-only transaction so the figures are of one snapshot. It is the
// metrics' own port, apart from disburse.Tx: no use case reads it.
func (s *Store) OperatorGauges(ctx context.Context, now time.Time) (OperatorGauges, error) {
	var g OperatorGauges
	err := s.retrying(ctx, func() error {
		return s.transact(ctx, s.read, true, func(t *tx) (err error) {
			g, err = t.operatorGauges(ctx, now)
			return err
		})
	})
	return g, err
}

// operatorGauges runs one aggregate query a table. The outbox queries read
// every row of their table (a GROUP BY status): a scrape's cost follows the
// table's size (docs/operations.md, "Monitoring").
func (t *tx) operatorGauges(ctx context.Context, now time.Time) (OperatorGauges, error) {
	var g OperatorGauges
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
func (t *tx) outbox(ctx context.Context, table string) (Outbox, error) {
	o := Outbox{ByStatus: map[string]int64{}}
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
