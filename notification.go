package disburse

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Notifier delivers one notification through a provider (SMS gateway, push
// service). An error means "try again later"; it never touches money. Send
// must return once ctx is done: the delivery worker relies on it to finish
// every send inside the lease it holds.
type Notifier interface {
	Send(ctx context.Context, n Notification) error
}

// ErrLeaseLost is what UpdateNotification returns when the notification is
// no longer leased to the owner named in it: another process has taken it
// over, and the outcome of this attempt must not overwrite its own.
var ErrLeaseLost = errors.New("notification lease lost")

// DeliveryPolicy says how the delivery worker retries and how long it may
// hold work (contract section 8).
type DeliveryPolicy struct {
	MaxAttempts int           // after this many failures a notification is FAILED
	BaseBackoff time.Duration // wait after the first failure; doubles each time
	MaxBackoff  time.Duration
	Lease       time.Duration // how long a claim holds before another process may take it
	SendTimeout time.Duration // the most one send may take: the provider's context ends then
	BatchSize   int
}

// DefaultDeliveryPolicy: 8 attempts over about 20 minutes; a claim of 100
// held for a minute, of which a slow gateway (10 s a send) gets through at
// least four before the rest is handed back.
var DefaultDeliveryPolicy = DeliveryPolicy{
	MaxAttempts: 8, BaseBackoff: 5 * time.Second, MaxBackoff: 10 * time.Minute,
	Lease: time.Minute, SendTimeout: 10 * time.Second, BatchSize: 100,
}

// LeaseMargin is the part of a lease no send may start in: time to record the
// outcome of the last send before the lease ends, and slack for replicas
// whose clocks disagree by a few seconds.
const LeaseMargin = 5 * time.Second

// check rejects a policy under which a lease could end while a send is in
// flight, or nothing could ever be sent.
func (p DeliveryPolicy) check() error {
	switch {
	case p.MaxAttempts < 1 || p.BatchSize < 1:
		return fmt.Errorf("delivery policy: MaxAttempts %d and BatchSize %d must be at least 1", p.MaxAttempts, p.BatchSize)
	case p.SendTimeout <= 0:
		return fmt.Errorf("delivery policy: SendTimeout must be positive")
	case p.Lease < p.SendTimeout+LeaseMargin:
		return fmt.Errorf("delivery policy: Lease %v must cover SendTimeout %v plus %v", p.Lease, p.SendTimeout, LeaseMargin)
	}
	return nil
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
// it attempted.
//
// A lease never ends while its holder may still be sending: a send starts
// only while the lease has SendTimeout plus LeaseMargin left, and gets a
// context that ends after SendTimeout; when the lease runs short the rest of
// the claim is handed back. The outcome is written only while the lease is
// still this owner's. A process that dies mid-way loses its lease when it
// expires and another process takes the work over.
//
// When ctx ends (shutdown), the send in flight runs to completion (bounded by
// SendTimeout) and its outcome is recorded, no new send starts, and the rest
// of the claim is handed back at once.
func (s *Service) DeliverNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	var claimed []Notification
	var leaseUntil time.Time
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		leaseUntil = now.Add(p.Lease)
		var err error
		claimed, err = tx.ClaimNotifications(ctx, owner, now, leaseUntil, p.BatchSize)
		return err
	})
	if err != nil {
		return 0, err
	}
	// Sends and outcomes are not cut short by shutdown, or a message the
	// gateway got would be counted as failed and sent again.
	bg := context.WithoutCancel(ctx)
	release := func() error {
		return s.Store.Write(bg, func(tx Tx) error { return tx.ReleaseNotifications(bg, owner) })
	}
	for i, msg := range claimed {
		if ctx.Err() != nil || s.now().Add(p.SendTimeout+LeaseMargin).After(leaseUntil) {
			// Shutting down, or too little lease left for one more send:
			// hand the rest back at once rather than at lease expiry.
			return i, release()
		}
		sendErr := send(bg, n, msg, p.SendTimeout)
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
		// msg.LeaseOwner is still owner: the store writes only under that lease.
		err := s.Store.Write(bg, func(tx Tx) error { return tx.UpdateNotification(bg, msg) })
		switch {
		case errors.Is(err, ErrLeaseLost):
			// Only a provider that overran its deadline or a stalled process
			// gets here; the rest of the claim is likely lost too.
			s.Log.WarnContext(ctx, "notification lease lost before its outcome was written", "id", msg.ID, "owner", owner)
			return i + 1, release()
		case err != nil:
			return i + 1, errors.Join(err, release())
		}
	}
	return len(claimed), nil
}

// send gives the provider one attempt, bounded by timeout.
func send(ctx context.Context, n Notifier, msg Notification, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return n.Send(ctx, msg)
}
