package disburse

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse/internal/fanout"
)

// Notifier delivers one notification through a provider (SMS gateway, push
// service). An error means "try again later"; it never touches money. Send
// must return once ctx is done: the delivery worker relies on it to finish
// every send inside the lease it holds.
type Notifier interface {
	Send(ctx context.Context, n Notification) error
}

// DeliveryPolicy says how the delivery worker retries and how long it may
// hold work (docs/api.md section 8).
type DeliveryPolicy struct {
	MaxAttempts int           // after this many failures a notification is FAILED
	BaseBackoff time.Duration // wait after the first failure; doubles each time
	MaxBackoff  time.Duration
	Lease       time.Duration // how long a claim holds before another process may take it
	SendTimeout time.Duration // the most one send may take: the provider's context ends then
	BatchSize   int           // rows one claim leases
	// Concurrency is how many sends one process has in flight at once;
	// 0 or 1 sends one at a time.
	Concurrency int
	// Rate is the most sends one process starts a second; 0 is no limit.
	Rate int
}

// DefaultDeliveryPolicy: 8 attempts over about 20 minutes, sent
// DefaultDeliveryConcurrency at a time, under a lease of one send
// (SendTimeout plus LeaseMargin) and a few seconds for the claim to start
// its sends, so that the rows of a process that dies are free again
// within that.
var DefaultDeliveryPolicy = DeliveryPolicy{
	MaxAttempts: 8, BaseBackoff: 5 * time.Second, MaxBackoff: 10 * time.Minute,
	Lease: 20 * time.Second, SendTimeout: 10 * time.Second, BatchSize: 500, Concurrency: DefaultDeliveryConcurrency,
}

// DefaultDeliveryConcurrency is how many notification sends, and how many
// webhook attempts, one process has in flight at once unless configured:
// enough to hide a gateway's latency, few enough for one gateway's
// connections.
const DefaultDeliveryConcurrency = 32

// LeaseMargin is the part of a lease no send may start in: time to record the
// outcome of the last send before the lease ends, and slack for replicas
// whose clocks disagree by a few seconds.
const LeaseMargin = 5 * time.Second

// check rejects a policy under which a lease could end while a send is in
// flight, or nothing could ever be sent.
func (p DeliveryPolicy) check() error {
	switch {
	case p.MaxAttempts < 1 || p.BatchSize < 1 || p.Concurrency < 0 || p.Rate < 0:
		return fmt.Errorf("delivery policy: MaxAttempts %d and BatchSize %d must be at least 1, Concurrency %d and Rate %d not negative",
			p.MaxAttempts, p.BatchSize, p.Concurrency, p.Rate)
	case p.SendTimeout <= 0:
		return fmt.Errorf("delivery policy: SendTimeout must be positive")
	case p.Lease <= p.SendTimeout+LeaseMargin:
		// Equal would leave no time to start a send once claimed.
		return fmt.Errorf("delivery policy: Lease %v must exceed SendTimeout %v plus %v", p.Lease, p.SendTimeout, LeaseMargin)
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
// name), sends them, up to p.Concurrency at once, and records each outcome
// as soon as it ends (fanout.Run): SENT, or another attempt after an
// exponential backoff, or FAILED after the last one. It returns how many
// it attempted, once nothing is due and no send is in flight.
//
// A claim's rows are sent as slots free, and the worker claims again as
// soon as half the slots are free, while the claims before it are still
// sending (fanout.Dispatch): a send that hangs holds its own slot until
// SendTimeout and nothing else. A process that dies holds its claim for
// one lease, and sent again only what was in flight (docs/operations.md,
// "Background work and how it is claimed").
//
// A lease never ends while its holder may still be sending: a send starts
// only while the lease has SendTimeout plus LeaseMargin left, and gets a
// context that ends after SendTimeout; when the lease runs short the rest of
// the claim is handed back. An outcome is written only while the lease is
// still this owner's.
//
// When ctx ends (shutdown), the sends in flight run to completion (bounded
// by SendTimeout) and their outcomes are recorded, no new send starts, and
// the rest of the claim is handed back at once.
func (s *Service) DeliverNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	slots := fanout.NewSlots(p.Concurrency, 0)
	turn := fanout.NewPace(p.Rate)
	return fanout.Dispatch(ctx, slots, DeliveryPoll, func(int, []string) (int, func() (int, error), error) {
		return s.claimNotifications(ctx, n, owner, p, slots, turn)
	})
}

// DeliveryPoll is how often a delivery worker with sends in flight looks
// for work that fell due meanwhile.
const DeliveryPoll = 200 * time.Millisecond

// claimNotifications claims up to p.BatchSize notifications and returns
// how many and the run that sends each as a slot frees.
func (s *Service) claimNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy, slots *fanout.Slots, turn fanout.Pace) (int, func() (int, error), error) {
	var claimed []Notification
	var leaseUntil time.Time
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		leaseUntil = now.Add(p.Lease)
		var err error
		claimed, err = tx.ClaimNotifications(ctx, owner, now, leaseUntil, p.BatchSize)
		return err
	})
	if err != nil || len(claimed) == 0 {
		return 0, nil, err
	}
	// Sends and outcomes are not cut short by shutdown, or a message the
	// gateway got would be counted as failed and sent again.
	bg := context.WithoutCancel(ctx)
	mayStart := func(Notification) bool {
		// Shutting down, or too little lease left for one more send: the
		// rest is handed back at once rather than at lease expiry.
		if !slots.Wait(ctx, "") {
			return false
		}
		if turn.Wait(ctx) && !s.now().Add(p.SendTimeout+LeaseMargin).After(leaseUntil) {
			return true
		}
		slots.Give("")
		return false
	}
	attempt := func(msg Notification) Notification {
		defer slots.Give("")
		sendErr := send(bg, n, msg, p.SendTimeout)
		msg.Attempts++
		now := s.now()
		switch {
		case sendErr == nil:
			msg.Status, msg.SentAt, msg.LastError = NotificationSent, now, ""
			s.attempted(msg.Channel, AttemptSent)
		case msg.Attempts >= p.MaxAttempts:
			msg.Status, msg.LastError = NotificationFailed, sendErr.Error()
			s.attempted(msg.Channel, AttemptGaveUp)
		default:
			msg.NextAttemptAt, msg.LastError = now.Add(p.backoff(msg.Attempts)), sendErr.Error()
			s.attempted(msg.Channel, AttemptRetrying)
		}
		return msg // msg.LeaseOwner is still owner: the store writes only under that lease
	}
	record := func(outcomes, unattempted []Notification) (bool, error) {
		written := 0
		err := s.Store.Write(bg, func(tx Tx) error {
			var err error
			if written, err = tx.UpdateNotifications(bg, outcomes); err != nil {
				return err
			}
			return tx.ReleaseNotifications(bg, owner, fanout.IDs(unattempted, func(n Notification) string { return n.ID }))
		})
		if err != nil || written == len(outcomes) {
			return false, err
		}
		// Only a provider that overran its deadline or a stalled process
		// gets here; the rest of the claim is likely lost too.
		s.Log.WarnContext(ctx, "notification lease lost before its outcome was written", "lost", len(outcomes)-written, "owner", owner)
		return true, nil
	}
	return len(claimed), func() (int, error) { return fanout.Run(claimed, len(claimed), mayStart, attempt, record) }, nil
}

// send gives the provider one attempt, bounded by timeout.
func send(ctx context.Context, n Notifier, msg Notification, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return n.Send(ctx, msg)
}
