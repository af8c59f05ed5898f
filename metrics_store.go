package disburse

import (
	"context"
	"time"
)

// MetricsTx reads what the operator's metrics show, at scrape time: one
// aggregate query a table, and nothing that names an organisation, payee
// or id.
type MetricsTx interface {
	// OperatorGauges counts notifications and webhook deliveries by status,
	// with the creation time of the oldest PENDING one of each, the tokens
	// that have not expired at now, and the API keys not revoked.
	OperatorGauges(ctx context.Context, now time.Time) (OperatorGauges, error)
}

// OperatorGauges is what MetricsTx.OperatorGauges reads.
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
