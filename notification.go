package disburse

import (
	"context"
	"time"
)

// Notifier delivers one notification through a provider (SMS gateway, push
// service). An error means "try again later"; it never touches money.
type Notifier interface {
	Send(ctx context.Context, n Notification) error
}

// DeliveryPolicy says how the delivery worker retries.
type DeliveryPolicy struct {
	MaxAttempts int           // after this many failures a notification is FAILED
	BaseBackoff time.Duration // wait after the first failure; doubles each time
	MaxBackoff  time.Duration
	Lease       time.Duration // how long a claim holds before another process may take it
	BatchSize   int
}

// DefaultDeliveryPolicy: 8 attempts over about 20 minutes.
var DefaultDeliveryPolicy = DeliveryPolicy{
	MaxAttempts: 8, BaseBackoff: 5 * time.Second, MaxBackoff: 10 * time.Minute,
	Lease: time.Minute, BatchSize: 100,
}

// backoff is the wait after the given number of failed attempts.
func (p DeliveryPolicy) backoff(attempts int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < attempts && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}

// DeliverNotifications claims the due notifications (a lease under owner's
// name), sends each, and records the outcome: SENT, or another attempt after
// an exponential backoff, or FAILED after the last one. It returns how many
// it attempted. A process that dies mid-way loses its lease when it expires
// and another process takes the work over.
func (s *Service) DeliverNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy) (int, error) {
	var claimed []Notification
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		var err error
		claimed, err = tx.ClaimNotifications(ctx, owner, now, now.Add(p.Lease), p.BatchSize)
		return err
	})
	if err != nil {
		return 0, err
	}
	// Outcomes are written even while shutting down, or work would be redone.
	bg := context.WithoutCancel(ctx)
	for i, msg := range claimed {
		if ctx.Err() != nil {
			// Shutting down: hand the rest back at once rather than at lease expiry.
			return i, s.Store.Write(bg, func(tx Tx) error {
				return tx.ReleaseNotifications(bg, owner)
			})
		}
		sendErr := n.Send(ctx, msg)
		msg.Attempts++
		now := s.now()
		switch {
		case sendErr == nil:
			msg.Status, msg.SentAt, msg.LastError = NotificationSent, now, ""
		case msg.Attempts >= p.MaxAttempts:
			msg.Status, msg.LastError = NotificationFailed, sendErr.Error()
		default:
			msg.NextAttemptAt, msg.LastError = now.Add(p.backoff(msg.Attempts)), sendErr.Error()
		}
		msg.LeaseOwner, msg.LeaseUntil = "", time.Time{}
		if err := s.Store.Write(bg, func(tx Tx) error {
			return tx.UpdateNotification(bg, msg)
		}); err != nil {
			return i, err
		}
	}
	return len(claimed), nil
}
