package disburse

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse/internal/fanout"
)

// Notifier delivers one notification through a provider (SMS gateway, push
// service). An error means "try again later"; it never touches money. Send
// must return once ctx is done: the delivery worker relies on it to bound
// how long a send holds its slot and its lease.
type Notifier interface {
	Send(ctx context.Context, n Notification) error
}

// DeliveryPolicy says how the delivery worker retries and how long it may
// hold work (docs/api.md section 8).
type DeliveryPolicy struct {
	MaxAttempts int           // after this many failures a notification is FAILED
	BaseBackoff time.Duration // wait after the first failure; doubles each time
	MaxBackoff  time.Duration
	// Lease is how long a claim holds unless its process renews it (every
	// Lease/3 while it lives): how soon another process takes over the
	// rows of one that died.
	Lease       time.Duration
	SendTimeout time.Duration // the most one send may take: the provider's context ends then
	BatchSize   int           // rows one claim leases
	// Concurrency is how many sends one process has in flight at once;
	// 0 or 1 sends one at a time.
	Concurrency int
	// Rate is the most sends one process starts a second; 0 is no limit.
	Rate int
}

// DefaultDeliveryPolicy: 8 attempts over about 20 minutes, sent
// DefaultDeliveryConcurrency at a time, under a lease of DefaultLease
// renewed while the process lives.
var DefaultDeliveryPolicy = DeliveryPolicy{
	MaxAttempts: 8, BaseBackoff: 5 * time.Second, MaxBackoff: 10 * time.Minute,
	Lease: DefaultLease, SendTimeout: 10 * time.Second, BatchSize: 500, Concurrency: DefaultDeliveryConcurrency,
}

// DefaultLease is the lease of a claim of notifications or webhook
// deliveries: short, so that the rows of a process that dies are sent by
// another within seconds, and long enough for a heartbeat or two to be
// late (a busy database) without losing it. Replicas' clocks must agree to
// well within a third of it (docs/operations.md, "Background work and how
// it is claimed").
const DefaultLease = 5 * time.Second

// DefaultDeliveryConcurrency is how many notification sends, and how many
// webhook attempts, one process has in flight at once unless configured:
// enough to hide a gateway's latency, few enough for one gateway's
// connections.
const DefaultDeliveryConcurrency = 32

// check rejects a policy under which nothing could ever be sent.
func (p DeliveryPolicy) check() error {
	switch {
	case p.MaxAttempts < 1 || p.BatchSize < 1 || p.Concurrency < 0 || p.Rate < 0:
		return fmt.Errorf("delivery policy: MaxAttempts %d and BatchSize %d must be at least 1, Concurrency %d and Rate %d not negative",
			p.MaxAttempts, p.BatchSize, p.Concurrency, p.Rate)
	case p.SendTimeout <= 0 || p.Lease <= 0:
		return fmt.Errorf("delivery policy: SendTimeout and Lease must be positive")
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
// SendTimeout and nothing else.
//
// A heartbeat renews the lease of every row the process still holds, in
// one statement every p.Lease/3 (fanout.Leases), so a send may outlast the
// lease; a process that dies holds its rows for one lease at most, and
// sent again only what was in flight (docs/operations.md, "Background work
// and how it is claimed"). A send starts only while the heartbeat keeps
// its claim; a claim whose lease ran out first (a stalled process, an
// unreachable database) starts nothing more and is handed back. An outcome
// is written only while the row is still this owner's, so a late one never
// overwrites what another process recorded.
//
// When ctx ends (shutdown), the sends in flight run to completion (bounded
// by SendTimeout) and their outcomes are recorded, no new send starts, and
// the rest of the claim is handed back at once.
func (s *Service) DeliverNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	bg := context.WithoutCancel(ctx)
	leases := fanout.NewLeases(p.Lease, s.now, func(ids []string, now, until time.Time) error {
		err := s.Store.Write(bg, func(tx Tx) error { return tx.ExtendNotificationLeases(bg, owner, ids, now, until) })
		if err != nil {
			s.Log.WarnContext(ctx, "notification leases not renewed", "err", err, "owner", owner)
		}
		return err
	})
	defer leases.Start()()
	slots := fanout.NewSlots(p.Concurrency, 0)
	turn := fanout.NewPace(p.Rate)
	return fanout.Dispatch(ctx, slots, DeliveryPoll, func(int, []string) (int, func() (int, error), error) {
		return s.claimNotifications(ctx, n, owner, p, claimRoom{slots, turn, leases})
	})
}

// DeliveryPoll is how often a delivery worker with sends in flight looks
// for work that fell due meanwhile.
const DeliveryPoll = 200 * time.Millisecond

// claimRoom is what one claim of DeliverNotifications works within: the
// process's slots, the pace of its sends, and the heartbeat of its leases.
type claimRoom struct {
	slots  *fanout.Slots
	turn   fanout.Pace
	leases *fanout.Leases
}

// claimNotifications claims up to p.BatchSize notifications and returns
// how many and the run that sends each as a slot frees.
func (s *Service) claimNotifications(ctx context.Context, n Notifier, owner string, p DeliveryPolicy, room claimRoom) (int, func() (int, error), error) {
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
	hold := room.leases.Hold(fanout.IDs(claimed, func(n Notification) string { return n.ID }), leaseUntil)
	// Sends and outcomes are not cut short by shutdown, or a message the
	// gateway got would be counted as failed and sent again.
	bg := context.WithoutCancel(ctx)
	mayStart := func(Notification) bool {
		// Shutting down, or the lease is no longer kept: the rest is
		// handed back at once rather than at lease expiry.
		if !room.slots.Wait(ctx, "") {
			return false
		}
		if room.turn.Wait(ctx) && hold.MayStart(s.now()) {
			return true
		}
		room.slots.Give("")
		return false
	}
	attempt := func(msg Notification) Notification {
		defer room.slots.Give("")
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
		// Only a stalled process, or a database out of reach for longer
		// than a lease, gets here; the rest of the claim is likely lost too.
		s.Log.WarnContext(ctx, "notification lease lost before its outcome was written", "lost", len(outcomes)-written, "owner", owner)
		return true, nil
	}
	return len(claimed), func() (int, error) {
		defer room.leases.Drop(hold)
		return fanout.Run(claimed, len(claimed), mayStart, attempt, record)
	}, nil
}

// send gives the provider one attempt, bounded by timeout.
func send(ctx context.Context, n Notifier, msg Notification, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return n.Send(ctx, msg)
}
