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
// once): the attempts in flight and the outcomes waiting for their write.
// The callers bound the two together (Unwritten): the place mayStart
// takes for an attempt is given back only once its outcome is written
// (Settled), so a process that dies repeats at most as many sends as it
// has places. The
// last call of record, when every attempt has ended, is also given what
// was never attempted, to hand back in the same transaction (unattempted
// is nil in the others). A record that reports the lease lost (stop) or
// fails stops new attempts; the attempts in flight end and their
// outcomes, with a failed group's, go to the last record. It returns how
// many items were attempted.
//
// mayStart is asked for each item before its attempt, and may wait (for a
// slot of the item's key) until its ctx ends: ctx is Run's, ended too once
// a record stops or fails, for a slot held by an outcome that failed to be
// written is given back only by the last record. An item it refuses is
// handed back, and the sender goes on to the next.
func Run[T any](ctx context.Context, claimed []T, concurrency int, mayStart func(context.Context, T) bool, attempt func(T) T,
	record func(outcomes, unattempted []T) (stop bool, err error)) (int, error) {
	ctx, halt := context.WithCancel(ctx)
	defer halt()
	r := &run[T]{claimed: claimed, record: record, halt: halt}
	outcomes := r.send(ctx, max(concurrency, 1), mayStart, attempt)
	attempted := 0
	for o := range outcomes {
		attempted++
		r.group = append(r.group, o)
		attempted += r.gather(outcomes)
		if len(r.errs) == 0 {
			r.flush(false)
		}
	}
	r.flush(true)
	return attempted, errors.Join(r.errs...)
}

// run is one call of Run: the claim, the senders' shared place in it, and
// the group of outcomes waiting for record.
type run[T any] struct {
	claimed []T
	record  func(outcomes, unattempted []T) (stop bool, err error)
	next    atomic.Int64 // the index of the next item a sender takes
	// halt ends the senders' context once a record stops or fails: no
	// new attempts, and no wait for a slot.
	halt context.CancelFunc

	mu      sync.Mutex
	refused []T // items mayStart refused

	group []T // outcomes not yet recorded
	errs  []error
}

// send starts up to concurrency senders, each taking the next item of the
// claim, and returns the channel of their outcomes, closed once every
// sender has stopped.
func (r *run[T]) send(ctx context.Context, concurrency int, mayStart func(context.Context, T) bool, attempt func(T) T) <-chan T {
	outcomes := make(chan T, concurrency)
	var senders sync.WaitGroup
	for range min(concurrency, len(r.claimed)) {
		senders.Go(func() {
			for ctx.Err() == nil {
				i := int(r.next.Add(1)) - 1
				if i >= len(r.claimed) {
					return
				}
				if !mayStart(ctx, r.claimed[i]) {
					r.mu.Lock()
					r.refused = append(r.refused, r.claimed[i])
					r.mu.Unlock()
					continue
				}
				outcomes <- attempt(r.claimed[i])
			}
		})
	}
	go func() {
		senders.Wait()
		close(outcomes)
	}()
	return outcomes
}

// gather adds to the group what else has ended, without waiting, and
// returns how many it added.
func (r *run[T]) gather(outcomes <-chan T) int {
	n := 0
	for {
		select {
		case o, ok := <-outcomes:
			if !ok {
				return n
			}
			n++
			r.group = append(r.group, o)
		default:
			return n
		}
	}
}

// flush hands the group to record; the last flush also hands back what
// was never attempted.
func (r *run[T]) flush(last bool) {
	var unattempted []T
	if last {
		// Every item before next was taken by a sender, and attempted
		// unless mayStart refused it; none after it was.
		r.mu.Lock()
		unattempted = append(r.refused, r.claimed[min(int(r.next.Load()), len(r.claimed)):]...)
		r.mu.Unlock()
		if unattempted == nil {
			unattempted = []T{}
		}
	}
	stop, err := r.record(r.group, unattempted)
	switch {
	case err != nil:
		// The group stays for the last record: the database may be back
		// by then, and a row written twice under one lease is written
		// once (the second finds the lease cleared).
		r.errs = append(r.errs, err)
		r.halt()
	case stop:
		r.group = r.group[:0]
		r.halt()
	default:
		r.group = r.group[:0]
	}
}

// Settled reports whether the outcomes handed to a call of Run's record
// that returned err have left the run: they have unless the call failed
// and was not the last (its unattempted is nil), for the run hands a
// failed group to its last call again. A caller that holds something per
// outcome until it is written (a slot) lets it go once settled.
func Settled[T any](unattempted []T, err error) bool {
	return err == nil || unattempted != nil
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
