package notifications

import (
	"context"
	"slices"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/fanout"
)

// Deliver claims the due notifications (a lease under owner's name), sends
// them, up to p.Concurrency at once, and records each outcome as soon as
// it ends (fanout.Run): SENT, or another attempt after an exponential
// backoff, or FAILED after the last one. It returns how many it attempted,
// once nothing is due and no send is in flight.
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
func (s *Service) Deliver(ctx context.Context, n Notifier, owner string, p Policy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	bg := context.WithoutCancel(ctx)
	leases := fanout.NewLeases(p.Lease, s.now, func(ids []string, now, until time.Time) ([]string, error) {
		var renewed []string
		err := s.Store.Write(bg, func(tx Tx) (err error) {
			renewed, err = tx.ExtendNotificationLeases(bg, owner, ids, now, until)
			return err
		})
		if err != nil {
			s.Log.WarnContext(ctx, "notification leases not renewed", "err", err, "owner", owner)
		}
		return renewed, err
	})
	defer leases.Start()()
	slots := fanout.NewSlots(p.Concurrency, 0)
	unwritten := fanout.NewUnwritten(p.Concurrency)
	turn := fanout.NewPace(p.Rate)
	return fanout.Dispatch(ctx, slots, poll, func(int, []string) (int, func() (int, error), error) {
		if unwritten.Busy() {
			return 0, nil, nil
		}
		return s.claim(ctx, n, owner, p, claimRoom{slots, unwritten, turn, leases})
	})
}

// poll is how often a delivery worker with sends in flight looks for work
// that fell due meanwhile.
const poll = 200 * time.Millisecond

// claimRoom is what one claim of Deliver works within: the process's
// slots, its bound on sends whose outcome is not yet written, the pace of
// its sends, and the heartbeat of its leases.
type claimRoom struct {
	slots     *fanout.Slots
	unwritten fanout.Unwritten
	turn      fanout.Pace
	leases    *fanout.Leases
}

// mayStart waits for a slot, a place for an unwritten outcome and the
// pace's turn, and says whether the next send of hold's claim may start.
// Shutting down, or the lease no longer kept: the rest is handed back at
// once rather than at lease expiry.
func (room claimRoom) mayStart(ctx context.Context, hold *fanout.Hold, now func() time.Time) bool {
	if !room.slots.Wait(ctx, "") {
		return false
	}
	if room.unwritten.Wait(ctx) {
		if room.turn.Wait(ctx) && hold.MayStart(now()) {
			return true
		}
		room.unwritten.Give()
	}
	room.slots.Give("")
	return false
}

// claim claims up to p.BatchSize notifications and returns how many and
// the run that sends each as a slot frees.
func (s *Service) claim(ctx context.Context, n Notifier, owner string, p Policy, room claimRoom) (int, func() (int, error), error) {
	var claimed []disburse.Notification
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
	hold := room.leases.Hold(fanout.IDs(claimed, idOf), leaseUntil)
	// Sends and outcomes are not cut short by shutdown, or a message the
	// gateway got would be counted as failed and sent again.
	bg := context.WithoutCancel(ctx)
	mayStart := func(ctx context.Context, _ disburse.Notification) bool { return room.mayStart(ctx, hold, s.now) }
	attempt := func(msg disburse.Notification) disburse.Notification {
		defer room.slots.Give("")
		sendErr := send(bg, n, msg, p.SendTimeout)
		msg.Attempts++
		now := s.now()
		switch {
		case sendErr == nil:
			msg.Status, msg.SentAt, msg.LastError = disburse.NotificationSent, now, ""
			s.attempted(msg.Channel, AttemptSent)
		case msg.Attempts >= p.MaxAttempts:
			msg.Status, msg.LastError = disburse.NotificationFailed, sendErr.Error()
			s.attempted(msg.Channel, AttemptGaveUp)
		default:
			msg.NextAttemptAt, msg.LastError = now.Add(p.backoff(msg.Attempts)), sendErr.Error()
			s.attempted(msg.Channel, AttemptRetrying)
		}
		return msg // msg.LeaseOwner is still owner: the store writes only under that lease
	}
	record := func(outcomes, unattempted []disburse.Notification) (bool, error) {
		written := 0
		err := hold.Write(fanout.IDs(append(slices.Clip(outcomes), unattempted...), idOf), func() error {
			return s.Store.Write(bg, func(tx Tx) error {
				var err error
				if written, err = tx.UpdateNotifications(bg, outcomes); err != nil {
					return err
				}
				return tx.ReleaseNotifications(bg, owner, fanout.IDs(unattempted, idOf))
			})
		})
		room.unwritten.Written(len(outcomes), fanout.Settled(unattempted, err))
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
		return fanout.Run(ctx, claimed, len(claimed), mayStart, attempt, record)
	}, nil
}

// idOf is a notification's id, by which leases name their rows.
func idOf(n disburse.Notification) string { return n.ID }

// send gives the provider one attempt, bounded by timeout.
func send(ctx context.Context, n Notifier, msg disburse.Notification, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	return n.Send(ctx, msg)
}
