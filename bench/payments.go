package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

// result is what the payments mode measured: one entry per pair for add
// and submit, the service's and the floor's, medians reported.
type result struct {
	store                           string
	tag                             string // before each batch's tag: unique per result of one organisation
	payments, chunk, pairs          int
	add, addFloor, submit, subFloor []time.Duration
	register, reverse               time.Duration
	registered, workers, reversed   int
	ledgerOK                        bool
	// peakRSS is the highest resident set of the service's add and submit
	// phases; runPeakRSS the whole process's, with the floors, the
	// registrations, the reversal and the ledger audit. MB.
	peakRSS, runPeakRSS float64

	// delivery of the outboxes: how many, in how long (deliver.go)
	delivered, webhooksSent int
	deliver, webhooks       time.Duration
}

// runPayments is the default mode. Pairs alternate which side goes first,
// so that neither always meets the bigger tables: pair 0 runs the service's
// add and submit of a fresh batch and then the floor's of another fresh
// batch, pair 1 the other way round, and so on. Every batch has its own
// non-members; the float covers every submit.
func runPayments(ctx context.Context, e *env) error {
	cfg := e.cfg
	n := cfg.Payments
	reversed := max(1, n/10)
	batches := 2*cfg.Pairs + 1
	float := disburse.Money(batches) * disburse.Money(n) * (100_00 + 5_00)
	e.say("%s: setting up an organisation with %s of float and %d members", engineOf(cfg.DatabaseURL), float, min(maxMembers, n/2))
	o, err := setup(ctx, e, float, min(maxMembers, n/2))
	if err != nil {
		return err
	}

	r := &result{store: engineOf(cfg.DatabaseURL), payments: n, chunk: cfg.Chunk, pairs: cfg.Pairs}
	first, firstID, err := r.runPairs(ctx, e, o)
	if err != nil {
		return err
	}

	r.registered = first.nonMemberCount()
	if cfg.Register > 0 {
		r.registered = min(r.registered, cfg.Register)
	}
	e.say("registering %d of %d non-members", r.registered, first.nonMemberCount())
	stop, err := e.profile("register")
	if err != nil {
		return err
	}
	r.register, r.workers, err = registerNonMembers(ctx, e, o, firstID, first, r.registered)
	stop()
	if err != nil {
		return err
	}

	r.reversed = reversed
	e.say("reversing %d payments", reversed)
	if r.reverse, err = reverse(ctx, e, o, o.newBatch("r", reversed, false), cfg.Chunk); err != nil {
		return err
	}

	if err := r.deliverOutboxes(ctx, e, first.nonMemberCount()); err != nil {
		return err
	}

	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	r.ledgerOK = ok
	r.runPeakRSS = max(r.runPeakRSS, peakRSSMB())
	if err := r.write(cfg.Out); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// runPairs adds and submits each pair of batches, the service's and the
// floor's, in turns (who goes first alternates), and returns the service's
// first batch, which the later phases use.
func (r *result) runPairs(ctx context.Context, e *env, o *org) (first batchSpec, firstID string, err error) {
	for i := range e.cfg.Pairs {
		svcSpec := o.newBatch(fmt.Sprintf("%ss%d", r.tag, i), r.payments, true)
		floorSpec := o.newBatch(fmt.Sprintf("%sf%d", r.tag, i), r.payments, true)
		sides := []func() error{
			func() error {
				// The service's own peak: the floor's connection is closed
				// by now, but its high-water mark would stay.
				r.runPeakRSS = max(r.runPeakRSS, peakRSSMB())
				resetPeakRSS()
				id, add, sub, err := serviceRun(ctx, e, o, svcSpec)
				r.peakRSS = max(r.peakRSS, peakRSSMB())
				if i == 0 {
					first, firstID = svcSpec, id
				}
				r.add, r.submit = append(r.add, add), append(r.submit, sub)
				return err
			},
			func() error {
				add, sub, err := floorRun(ctx, e, o, floorSpec)
				r.addFloor, r.subFloor = append(r.addFloor, add), append(r.subFloor, sub)
				return err
			},
		}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			if err := side(); err != nil {
				return first, firstID, err
			}
		}
		e.say("pair %d: add %v (floor %v), submit %v (floor %v)", i+1,
			r.add[i].Round(time.Millisecond), r.addFloor[i].Round(time.Millisecond), r.submit[i].Round(time.Millisecond), r.subFloor[i].Round(time.Millisecond))
	}
	return first, firstID, nil
}

// deliverOutboxes sends, as the workers would, the notifications of the
// first submit (or cfg.Deliver of them) and then, with endpoints, every
// webhook delivery the run wrote, and times each.
func (r *result) deliverOutboxes(ctx context.Context, e *env, firstSubmit int) error {
	want := e.cfg.Deliver
	if want == 0 {
		want = firstSubmit
	}
	e.say("delivering %d notifications, %d at once", want, e.cfg.DeliveryConcurrency)
	stop, err := e.profile("deliver")
	if err != nil {
		return err
	}
	r.delivered, r.deliver, err = deliverNotifications(ctx, e, want)
	stop()
	if err != nil || e.cfg.Webhooks == 0 {
		return err
	}
	e.say("delivering the webhooks")
	r.webhooksSent, r.webhooks, err = deliverWebhooks(ctx, e)
	return err
}

// ledgerError fails the run, after its figures are written, when the
// ledger audit did not pass: a benchmark that broke the ledger measured
// nothing worth keeping, and CI must see it.
func ledgerError(ok bool, problems []string) error {
	if ok {
		return nil
	}
	return fmt.Errorf("ledger check failed: %d problems", len(problems))
}

// serviceRun adds a fresh batch's payments through the API and submits it.
func serviceRun(ctx context.Context, e *env, o *org, spec batchSpec) (id string, add, sub time.Duration, err error) {
	if id, err = createBatch(ctx, e.client, o, "bench "+spec.tag); err != nil {
		return id, 0, 0, err
	}
	stop, err := e.profile("add")
	if err != nil {
		return id, 0, 0, err
	}
	add, err = addPayments(ctx, e.client, o, id, spec, e.cfg.Chunk)
	stop()
	if err != nil {
		return id, 0, 0, err
	}
	if stop, err = e.profile("submit"); err != nil {
		return id, 0, 0, err
	}
	sub, err = submit(ctx, e.client, o, id, spec)
	stop()
	return id, add, sub, err
}

// floorRun writes another fresh batch's rows straight into the database:
// the batch itself is created through the API, untimed. The floor's
// connection is its own and lives for the run alone: on SQLite its page
// cache would otherwise stay resident beside the service's and count in
// the process's peak RSS.
func floorRun(ctx context.Context, e *env, o *org, spec batchSpec) (add, sub time.Duration, err error) {
	id, err := createBatch(ctx, e.client, o, "floor "+spec.tag)
	if err != nil {
		return 0, 0, err
	}
	fl, err := openFloor(ctx, e.cfg.DatabaseURL, o, e.clock)
	if err != nil {
		return 0, 0, err
	}
	defer fl.close()
	if add, err = fl.add(ctx, id, spec); err != nil {
		return 0, 0, fmt.Errorf("floor add: %w", err)
	}
	if sub, err = fl.submit(ctx, id, spec); err != nil {
		return 0, 0, fmt.Errorf("floor submit: %w", err)
	}
	return add, sub, nil
}
