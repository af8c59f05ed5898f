// Package fanout is what the two outboxes, payee notifications and
// webhooks to organisations, share in how one process delivers a claim:
// attempts in flight at once up to a bound, and their outcomes written in
// groups, one transaction per group rather than one per row.
package fanout

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	"golang.org/x/time/rate"
)

// Run attempts the claimed items with up to concurrency attempts in
// flight (at least one), starting each only if mayStart allows (the
// lease has room for a whole attempt and the process is not shutting
// down), and hands the outcomes to record as soon as they end: each group
// is what ended while the group before it was being written, so that an
// outcome waits for one write at most. An outcome not yet written when the
// process dies is sent again once the lease expires (delivery is at least
// once): only the attempts in flight and the group being written. The last call of record, when every attempt has ended,
// is also given what was never attempted, to hand back in the same
// transaction (unattempted is nil in the others). A record
// that reports the lease lost (stop) or fails stops new attempts; the
// attempts in flight end and their outcomes, with a failed group's, go to
// the last record. It returns how many items were attempted.
//
// mayStart is asked for each item before its attempt, and may wait (for a
// slot of the item's key); an item it refuses is handed back, and the
// sender goes on to the next.
func Run[T any](claimed []T, concurrency int, mayStart func(T) bool, attempt func(T) T,
	record func(outcomes, unattempted []T) (stop bool, err error)) (int, error) {
	var next atomic.Int64
	var halt atomic.Bool
	var mu sync.Mutex
	var refused []T
	outcomes := make(chan T, max(concurrency, 1))
	var senders sync.WaitGroup
	for range min(max(concurrency, 1), len(claimed)) {
		senders.Go(func() {
			for !halt.Load() {
				i := int(next.Add(1)) - 1
				if i >= len(claimed) {
					return
				}
				if !mayStart(claimed[i]) {
					mu.Lock()
					refused = append(refused, claimed[i])
					mu.Unlock()
					continue
				}
				outcomes <- attempt(claimed[i])
			}
		})
	}
	go func() {
		senders.Wait()
		close(outcomes)
	}()

	var group []T
	var errs []error
	attempted := 0
	flush := func(last bool) {
		var unattempted []T
		if last {
			// Every item before next was taken by a sender, and
			// attempted unless mayStart refused it; none after it was.
			mu.Lock()
			unattempted = append(refused, claimed[min(int(next.Load()), len(claimed)):]...)
			mu.Unlock()
			if unattempted == nil {
				unattempted = []T{}
			}
		}
		stop, err := record(group, unattempted)
		switch {
		case err != nil:
			// The group stays for the last record: the database may
			// be back by then, and a row written twice under one lease
			// is written once (the second finds the lease cleared).
			errs = append(errs, err)
			halt.Store(true)
		case stop:
			group = group[:0]
			halt.Store(true)
		default:
			group = group[:0]
		}
	}
	for o := range outcomes {
		attempted++
		group = append(group, o)
	drain: // what else has ended joins this group
		for {
			select {
			case o, ok := <-outcomes:
				if !ok {
					break drain
				}
				attempted++
				group = append(group, o)
			default:
				break drain
			}
		}
		if len(errs) == 0 {
			flush(false)
		}
	}
	flush(true)
	return attempted, errors.Join(errs...)
}

// Pace spaces the attempts of one claim so that at most perSecond start in
// a second (0: no limit), for a gateway's quota or to leave the process
// room for the API. Its wait gives way when ctx ends.
type Pace struct{ l *rate.Limiter }

// NewPace returns a Pace of at most perSecond attempts a second; 0 or less
// sets no limit.
func NewPace(perSecond int) Pace {
	if perSecond <= 0 {
		return Pace{}
	}
	return Pace{rate.NewLimiter(rate.Limit(perSecond), 1)}
}

// Wait blocks until the next attempt may start; false once ctx has ended.
func (p Pace) Wait(ctx context.Context) bool {
	if p.l == nil {
		return ctx.Err() == nil
	}
	return p.l.Wait(ctx) == nil
}

// IDs lists the id of each item, as a claim's release takes them.
func IDs[T any](items []T, id func(T) string) []string {
	out := make([]string, len(items))
	for i, v := range items {
		out[i] = id(v)
	}
	return out
}
