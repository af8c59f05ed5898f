package bench

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse"
)

// Each phase runs through the API, or straight through the service where
// the API has no call for it (the reversal sweep is a background worker's).
// Each returns how long the measured part took and checks the outcome, so
// that a figure never comes from a run that went wrong.

// addPayments adds spec's payments to a batch in requests of chunk. The
// time is the sum of the requests' round trips: building each request body
// happens between them, off the clock, as a client would have it ready.
func addPayments(ctx context.Context, c *client, o *org, batchID string, spec batchSpec, chunk int) (time.Duration, error) {
	var total time.Duration
	for from := 0; from < spec.n; from += chunk {
		body := spec.body(from, min(from+chunk, spec.n))
		took, err := c.call(ctx, "POST", "/batches/"+batchID+"/payments", o.token, body, 200, nil)
		if err != nil {
			return 0, err
		}
		total += took
	}
	return total, nil
}

// submit submits a batch and checks its summary: members' payments
// settled, non-members' pending.
func submit(ctx context.Context, c *client, o *org, batchID string, spec batchSpec) (time.Duration, error) {
	took, err := c.call(ctx, "POST", "/batches/"+batchID+"/submit", o.token, nil, 200, nil)
	if err != nil {
		return 0, err
	}
	s, err := batch(ctx, c, o, batchID)
	if err != nil {
		return 0, err
	}
	pending := int64(spec.nonMemberCount())
	if s.StatusCode != "OPEN" || s.Summary.PendingCount != pending || s.Summary.SettledCount != int64(spec.n)-pending {
		return 0, fmt.Errorf("submitted batch %s is %s with %d settled and %d pending, want OPEN, %d and %d",
			batchID, s.StatusCode, s.Summary.SettledCount, s.Summary.PendingCount, int64(spec.n)-pending, pending)
	}
	return took, nil
}

// registerWorkers is how many registrations are in flight at once: a
// tenth of them, at most the load test's 64 connections, at least one.
func registerWorkers(n int) int { return max(1, min(64, n/10)) }

// register registers msisdns as members through POST /admin/members, with
// workers requests in flight at once, and returns the wall time of all.
func register(ctx context.Context, c *client, msisdns []string, workers int) (time.Duration, error) {
	took, _, err := registerTimed(ctx, c, msisdns, workers)
	return took, err
}

// registerTimed is register, with each registration's latency besides.
func registerTimed(ctx context.Context, c *client, msisdns []string, workers int) (time.Duration, []time.Duration, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var next atomic.Int64
	var mu sync.Mutex
	var first error
	var wg sync.WaitGroup
	latencies := make([][]time.Duration, workers)
	start := time.Now()
	for w := range workers {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(msisdns) && ctx.Err() == nil; i = int(next.Add(1)) - 1 {
				body := []byte(`{"msisdn":"` + msisdns[i] + `"}`)
				took, err := c.call(ctx, "POST", "/admin/members", c.admin, body, 201, nil)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
					cancel()
				}
				latencies[w] = append(latencies[w], took)
			}
		})
	}
	wg.Wait()
	return time.Since(start), slices.Concat(latencies...), first
}

// registerNonMembers registers the first k non-members of a submitted
// batch, each of whose registration settles its pending payment, and
// checks the batch: CLOSED once all have registered, else OPEN with those
// k settled besides the members' payments.
func registerNonMembers(ctx context.Context, e *env, o *org, batchID string, spec batchSpec, k int) (time.Duration, int, error) {
	msisdns := make([]string, k)
	for i := range msisdns {
		msisdns[i] = spec.nonMember(i)
	}
	workers := registerWorkers(len(msisdns))
	took, err := register(ctx, e.client, msisdns, workers)
	if err != nil {
		return 0, workers, err
	}
	s, err := batch(ctx, e.client, o, batchID)
	if err != nil {
		return 0, workers, err
	}
	status, settled := "OPEN", int64(spec.n-spec.nonMemberCount()+k)
	if k == spec.nonMemberCount() {
		status = "CLOSED"
	}
	if s.StatusCode != status || s.Summary.SettledCount != settled {
		return 0, workers, fmt.Errorf("batch %s after %d registrations: %s with %d of %d settled, want %s with %d", batchID, k, s.StatusCode, s.Summary.SettledCount, spec.n, status, settled)
	}
	return took, workers, nil
}

// reversalPeriod is the reversal batch's organisation setting; the clock
// then jumps past it.
const reversalPeriod = time.Minute

// reverse submits a batch of non-members with a short reversal period,
// moves the service's clock past their due date and times the sweep,
// svc.ReverseDue, which the reversal worker would run. The period is set
// back to the default afterwards.
func reverse(ctx context.Context, e *env, o *org, spec batchSpec, chunk int) (time.Duration, error) {
	c := e.client
	settings := func(seconds int64) error {
		return c.json(ctx, "PUT", "/admin/organisations/"+o.id+"/settings", c.admin, map[string]int64{"reversalPeriodSeconds": seconds}, 200, nil)
	}
	if err := settings(int64(reversalPeriod / time.Second)); err != nil {
		return 0, err
	}
	id, err := createBatch(ctx, c, o, "reversal")
	if err != nil {
		return 0, err
	}
	if _, err := addPayments(ctx, c, o, id, spec, chunk); err != nil {
		return 0, err
	}
	if _, err := c.call(ctx, "POST", "/batches/"+id+"/submit", o.token, nil, 200, nil); err != nil {
		return 0, err
	}
	if err := settings(int64(disburse.DefaultReversalPeriod / time.Second)); err != nil {
		return 0, err
	}
	e.clock.advance(reversalPeriod + time.Second)
	stop, err := e.profile("reverse")
	if err != nil {
		return 0, err
	}
	start := time.Now()
	n, err := e.svc.ReverseDue(ctx)
	took := time.Since(start)
	stop()
	if err != nil {
		return 0, err
	}
	s, err := batch(ctx, c, o, id)
	if err != nil {
		return 0, err
	}
	if n != spec.n || s.StatusCode != "CLOSED" || s.Summary.CancelledCount != int64(spec.n) {
		return 0, fmt.Errorf("reversal batch %s: the sweep changed %d payments and left it %s with %d cancelled, want %d, CLOSED", id, n, s.StatusCode, s.Summary.CancelledCount, spec.n)
	}
	return took, nil
}

// checkLedger asks the operator API to audit the ledger.
func checkLedger(ctx context.Context, c *client) (bool, []string, error) {
	var r struct {
		OK       bool     `json:"ok"`
		Problems []string `json:"problems"`
	}
	err := c.json(ctx, "GET", "/admin/ledger/check", c.admin, nil, 200, &r)
	return r.OK, r.Problems, err
}

// audit checks the ledger and reports each problem as progress.
func audit(ctx context.Context, e *env) (bool, []string, error) {
	e.say("auditing the ledger")
	ok, problems, err := checkLedger(ctx, e.client)
	for _, p := range problems {
		e.say("ledger: %s", p)
	}
	return ok, problems, err
}

// alongside runs load while work runs, and stops it when work returns: a
// measurement of what work does to others (load's figures), or to work
// of others (work's).
func alongside(ctx context.Context, load func(context.Context) error, work func() error) error {
	ctx, stop := context.WithCancel(ctx)
	var loadErr error
	var wg sync.WaitGroup
	wg.Go(func() { loadErr = load(ctx) })
	err := work()
	stop()
	wg.Wait()
	return errors.Join(err, loadErr)
}
