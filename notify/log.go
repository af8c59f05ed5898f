// Package notify holds the notification providers: where an SMS or push
// message goes once the delivery worker has claimed it.
package notify

import (
	"context"
	"log/slog"

	"github.com/disburse/disburse"
)

// Log is the default provider: it records each message in the log. The
// outbox row itself is the record (GET /admin/notifications).
type Log struct {
	Logger *slog.Logger
}

// Send logs the message and always succeeds.
func (l Log) Send(ctx context.Context, n disburse.Notification) error {
	l.Logger.InfoContext(ctx, "notification", "id", n.ID, "channel", n.Channel, "recipient", n.Recipient, "message", n.Message)
	return nil
}
