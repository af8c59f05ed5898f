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

// Group runs the requests that arrive while one transaction is running
// together, in the next one. A request's caller waits for its own result, so nothing is
// kept in memory past the request, and replicas need no coordination
// (each groups its own callers; the database's locks order the groups).
//
// It pays where many small transactions write the same rows: each group
// takes the shared rows' locks, the round trips and the commit's flush
// once, not once a request (docs/benchmarks.md, "Registration").
//
// There is no goroutine of its own. A caller that finds fewer than
// leaders groups running runs its request as a group of one; the others
// queue. A caller whose group is done hands the next group (the first up
// to max calls queued) to the first of them, which leads it. Several
// groups run at once so that one group's round trips to the database
// overlap another's; the rows they share are written last, and the
// groups queue only for those.
type Group[In, Out any] struct {
	leaders, max int
	// run does a group in one transaction and returns a result for each,
	// in order; when it fails, every request is run again alone, so that
	// one request's failure is its own.
	run func(ctx context.Context, group []In) ([]Out, error)

	mu      sync.Mutex
	queue   []*groupCall[In, Out]
	running int // groups
	stats   Stats
}

// Stats counts what a Group ran: its groups, and the calls in them.
type Stats struct{ Groups, Calls int64 }

// Stats is what g has run so far.
func (g *Group[In, Out]) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}

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

// Do runs in, in a group, and returns its result. A caller that leads
// runs its group under ctx, cancelled or not (the group is the others'
// too), for at most groupTimeout.
func (g *Group[In, Out]) Do(ctx context.Context, in In) (Out, error) {
	c := &groupCall[In, Out]{in: in, wake: make(chan []*groupCall[In, Out], 1)}
	var group []*groupCall[In, Out]
	g.mu.Lock()
	// Calls queue only while every leader is busy, so a caller that
	// finds a leader free has no one before it.
	if g.running < g.leaders {
		g.running++
		group = []*groupCall[In, Out]{c}
	} else {
		g.queue = append(g.queue, c)
	}
	g.mu.Unlock()
	if group == nil {
		if group = <-c.wake; group == nil {
			return c.out, c.err
		}
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), groupTimeout)
	g.runGroup(ctx, group)
	cancel()
	g.mu.Lock()
	g.stats.Groups++
	g.stats.Calls += int64(len(group))
	if len(g.queue) > 0 {
		next := g.queue[:min(len(g.queue), g.max)]
		g.queue = g.queue[len(next):]
		next[0].wake <- slices.Clip(next)
	} else {
		g.running--
	}
	g.mu.Unlock()
	return c.out, c.err
}

// runGroup runs the calls together, or each alone if together fails, and
// wakes every call but the leader's (the first): its result is in.
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
		if i > 0 {
			c.wake <- nil
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
