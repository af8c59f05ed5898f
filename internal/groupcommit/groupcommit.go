// Package groupcommit runs the requests that arrive while one transaction
// is running together, in the next one: group commit, as databases do it
// for their log.
package groupcommit

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"
)

// Group runs requests in groups, one transaction a group. A request's
// caller waits for its own result, so nothing is kept in memory past the
// request, and replicas need no coordination (each groups its own
// callers; the database's locks order the groups).
//
// It pays where many small transactions write the same rows: each group
// takes the shared rows' locks, the round trips and the commit's flush
// once, not once a request (docs/benchmarks.md, "Registration").
//
// A group is as large as the callers allow. Group counts the callers in
// Do; those of a group that has just ended are on their way back with
// their next requests, so the next group waits for as many callers as
// were lately in Do (shared between the groups that run at once), but
// never longer than the last group took to run, nor than maxWait: a
// caller arriving alone finds no one to wait for and runs at once. Up to leaders groups run at
// once, so that one group's round trips to the database overlap
// another's; the rows they share are written last, and the groups queue
// only for those.
//
// There is no goroutine of its own: the first caller of a group leads it,
// running it on its own goroutine, and every caller waits for its result.
type Group[In, Out any] struct {
	leaders, max int
	// run does a group in one transaction and returns a result for each,
	// in order; when it fails, every request is run again alone, so that
	// one request's failure is its own.
	run func(ctx context.Context, group []In) ([]Out, error)

	mu      sync.Mutex
	queue   []*groupCall[In, Out]
	running int // groups
	// inside is the callers in Do now; callers how many there are, in Do
	// or on their way back to it: the most lately in Do, less those who
	// did not come back while the queue waited for them.
	inside, callers int
	// linger is how long the last group ran, at most maxWait: the longest
	// the queue waits for others to join it, from its first call or the
	// last group's end, whichever is later (waitUntil); timer starts it
	// then.
	linger    time.Duration
	waitUntil time.Time
	lastEnd   time.Time
	timer     *time.Timer
	stats     Stats
}

// Stats counts what a Group ran: its groups, and the calls in them.
type Stats struct{ Groups, Calls int64 }

// maxWait bounds the wait for callers on their way back, however long the
// last group ran: a caller's way back (its answer read, its next request
// sent) is far shorter, and a group slowed by a stalled database must not
// make the next one wait as long for callers who have gone.
const maxWait = 20 * time.Millisecond

// groupTimeout bounds a group's transaction, which runs on after its
// leader's client has gone: the others in the group still want it.
const groupTimeout = time.Minute

// groupCall is one caller's request. wake is sent the group the caller
// is to lead, or nil when its result is in.
type groupCall[In, Out any] struct {
	in   In
	out  Out
	err  error
	wake chan []*groupCall[In, Out]
}

// New returns a Group that runs up to leaders groups at once, each of at
// most max requests, by calling run: one transaction a group, one result a
// request, in order.
func New[In, Out any](leaders, max int, run func(context.Context, []In) ([]Out, error)) *Group[In, Out] {
	return &Group[In, Out]{leaders: leaders, max: max, run: run}
}

// Stats is what g has run so far.
func (g *Group[In, Out]) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

// Do runs in, in a group, and returns its result. A caller that leads
// runs its group under ctx, cancelled or not (the group is the others'
// too), for at most groupTimeout.
func (g *Group[In, Out]) Do(ctx context.Context, in In) (Out, error) {
	c := &groupCall[In, Out]{in: in, wake: make(chan []*groupCall[In, Out], 1)}
	g.mu.Lock()
	now := time.Now()
	g.inside++
	if g.running == 0 && now.Sub(g.lastEnd) >= g.linger {
		// Idle for longer than a group takes: no caller is on its way back.
		g.callers = g.inside
	}
	g.callers = max(g.callers, g.inside)
	if len(g.queue) == 0 {
		g.waitUntil = now.Add(g.linger)
	}
	g.queue = append(g.queue, c)
	g.startLocked(now)
	g.mu.Unlock()
	group := <-c.wake
	if group == nil {
		return c.out, c.err
	}
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
	g.runGroup(ctx, group)
	cancel()
	g.mu.Lock()
	g.running--
	g.inside -= len(group)
	g.stats.Groups++
	g.stats.Calls += int64(len(group))
	g.lastEnd = time.Now()
	g.linger = min(g.lastEnd.Sub(start), maxWait)
	// Those who queued meanwhile wait for this group's callers to come back
	// as they would for the first of them.
	g.waitUntil = later(g.waitUntil, g.lastEnd.Add(g.linger))
	g.startLocked(g.lastEnd)
	g.mu.Unlock()
	// The others' results are in; they leave Do after the count above, so
	// that a caller back with its next request is not counted twice.
	for _, other := range group[1:] {
		other.wake <- nil
	}
	return c.out, c.err
}

// startLocked starts groups while a leader is free and the queue is ready:
// it holds as many callers as are worth waiting for (target), or it has
// waited long enough. The first of a group leads it. A queue left waiting
// with a leader free is started by the timer when its wait is over.
func (g *Group[In, Out]) startLocked(now time.Time) {
	for g.running < g.leaders && len(g.queue) > 0 && (len(g.queue) >= g.target() || !now.Before(g.waitUntil)) {
		if len(g.queue) < g.target() {
			g.callers = g.inside // the others did not come back
		}
		next := g.queue[:min(len(g.queue), g.max)]
		g.queue = g.queue[len(next):]
		g.running++
		next[0].wake <- slices.Clip(next)
	}
	if g.running < g.leaders && len(g.queue) > 0 {
		if g.timer == nil {
			g.timer = time.AfterFunc(g.waitUntil.Sub(now), g.waited)
		} else {
			g.timer.Reset(g.waitUntil.Sub(now))
		}
	}
}

// waited starts the queue whose wait is over.
func (g *Group[In, Out]) waited() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.startLocked(time.Now())
}

func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// target is the size of group worth waiting for: the callers lately in
// Do, shared between the groups that run at once, at most max.
func (g *Group[In, Out]) target() int {
	return max(1, min(g.max, (g.callers+g.leaders-1)/g.leaders))
}

// runGroup runs the calls together, or each alone if together fails.
func (g *Group[In, Out]) runGroup(ctx context.Context, group []*groupCall[In, Out]) {
	ins := make([]In, len(group))
	for i, c := range group {
		ins[i] = c.in
	}
	outs, err := g.safeRun(ctx, ins)
	for i, c := range group {
		switch {
		case err == nil:
			c.out = outs[i]
		case len(group) == 1:
			c.err = err
		default:
			var alone []Out
			if alone, c.err = g.safeRun(ctx, ins[i:i+1]); c.err == nil {
				c.out = alone[0]
			}
		}
	}
}

// safeRun is run with a panic made an error: the callers waiting on the
// group must be woken whatever happens to it.
func (g *Group[In, Out]) safeRun(ctx context.Context, ins []In) (outs []Out, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("group commit: panic: %v", p)
		}
	}()
	return g.run(ctx, ins)
}
