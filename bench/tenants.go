package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse"
)

// The --tenants mode: Tenants organisations each add and submit
// Payments/Tenants payments at the same time, through two replicas on
// PostgreSQL (two API servers in this process over the one database; one
// on SQLite, whose one writer they would share anyway), against one
// organisation's add and submit of all Payments in the same run. A
// further organisation reads one of its batches and creates a batch, one
// request after the other, while the tenants run: what many tenants at
// once do to a small one. Pairs alternate which side goes first, as the
// payments mode's do; medians are reported.

// tenantsWorld is the mode's organisations and where their requests go.
type tenantsWorld struct {
	one      *org   // adds and submits every payment alone
	tenants  []*org // add and submit their shares at once
	observer *org   // the small tenant whose latency is measured
	observed string // its batch, read again and again
	clients  []*client
	stores   []pooled // each replica's (tenants_waits.go)
}

// observed is the small tenant's latencies while the tenants ran, and
// what the process waited for meanwhile, a pair's run each.
type observed struct {
	get, post []time.Duration
	waits     []waitsSeen
}

func runTenants(ctx context.Context, e *env) error {
	w, stop, err := buildTenantsWorld(ctx, e)
	if err != nil {
		return err
	}
	defer stop()
	cfg := e.cfg
	share := cfg.Payments / cfg.Tenants
	var one, all []time.Duration
	var seen observed
	for i := range cfg.Pairs {
		sides := []func() error{
			func() error {
				e.say("pair %d: one organisation adds and submits %d payments", i+1, cfg.Payments)
				d, err := addAndSubmit(ctx, e.client, w.one, w.one.newBatch(fmt.Sprintf("one%d", i), cfg.Payments, true), cfg.Chunk)
				one = append(one, d)
				return err
			},
			func() error {
				e.say("pair %d: %d organisations add and submit %d payments each, at once", i+1, cfg.Tenants, share)
				d, err := w.addAndSubmitAll(ctx, i, share, cfg.Chunk, &seen)
				all = append(all, d)
				return err
			},
		}
		if i%2 == 1 {
			sides[0], sides[1] = sides[1], sides[0]
		}
		for _, side := range sides {
			if err := side(); err != nil {
				return err
			}
		}
		e.say("pair %d: tenants %v, one organisation %v", i+1, all[i].Round(time.Millisecond), one[i].Round(time.Millisecond))
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeTenants(e, len(w.clients), one, all, seen, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// buildTenantsWorld creates the organisations, each with float for every
// pair, and, on PostgreSQL, the second replica; stop closes it.
func buildTenantsWorld(ctx context.Context, e *env) (*tenantsWorld, func(), error) {
	cfg := e.cfg
	w := &tenantsWorld{clients: []*client{e.client}, stores: []pooled{e.store.(pooled)}}
	stop := func() {}
	if engineOf(cfg.DatabaseURL) == "postgres" {
		r, err := startReplica(ctx, e)
		if err != nil {
			return nil, stop, err
		}
		stop = func() {
			if err := r.close(); err != nil {
				e.say("second replica: %v", err)
			}
		}
		w.clients = append(w.clients, r.client)
		w.stores = append(w.stores, r.store)
	}
	e.say("%s: %d organisations at once through %d replicas, against one, %d payments, %d pairs",
		engineOf(cfg.DatabaseURL), cfg.Tenants, len(w.clients), cfg.Payments, cfg.Pairs)
	float := func(n int) disburse.Money { return disburse.Money(cfg.Pairs) * disburse.Money(n) * (100_00 + 5_00) }
	var err error
	if w.one, err = setup(ctx, e, float(cfg.Payments), min(maxMembers, cfg.Payments/2)); err != nil {
		return nil, stop, err
	}
	// Each organisation's non-members are its own: the msisdns after the
	// previous one's.
	next := firstNonMember + cfg.Pairs*cfg.Payments
	share := cfg.Payments / cfg.Tenants
	for range cfg.Tenants {
		o, err := setup(ctx, e, float(share), 0)
		if err != nil {
			return nil, stop, err
		}
		o.members, o.nextNonMember = w.one.members, next
		next += cfg.Pairs * share
		w.tenants = append(w.tenants, o)
	}
	if w.observer, err = setup(ctx, e, 1_000_00, 0); err != nil {
		return nil, stop, err
	}
	w.observed, err = createBatch(ctx, e.client, w.observer, "observed")
	return w, stop, err
}

// addAndSubmitAll has every tenant add and submit share payments at once,
// tenant k through replica k modulo the replicas, while the observer
// sends its requests; it returns the time until the last tenant's submit
// was answered.
func (w *tenantsWorld) addAndSubmitAll(ctx context.Context, pair, share, chunk int, seen *observed) (time.Duration, error) {
	var took time.Duration
	err := alongside(ctx, func(ctx context.Context) error { return w.observe(ctx, seen) }, func() error {
		errs := make([]error, len(w.tenants))
		var wg sync.WaitGroup
		mark := markWaits(w.stores)
		start := time.Now()
		for k, o := range w.tenants {
			spec := o.newBatch(fmt.Sprintf("t%d-%d", pair, k), share, true)
			wg.Go(func() { _, errs[k] = addAndSubmit(ctx, w.clients[k%len(w.clients)], o, spec, chunk) })
		}
		wg.Wait()
		took = time.Since(start)
		seen.waits = append(seen.waits, mark.since(w.stores))
		return firstError(errs)
	})
	return took, err
}

// observe has the observer read its batch and create one, in turn and one
// request at a time, through each replica in turn, until ctx ends.
func (w *tenantsWorld) observe(ctx context.Context, seen *observed) error {
	for i := 0; ctx.Err() == nil; i++ {
		c := w.clients[i%len(w.clients)]
		// A request under way when the tenants finish is finished and
		// counted: it was sent while they ran.
		call := context.WithoutCancel(ctx)
		d, err := c.call(call, "GET", "/batches/"+w.observed, w.observer.token, nil, 200, nil)
		if err != nil {
			return err
		}
		seen.get = append(seen.get, d)
		if d, err = c.call(call, "POST", "/batches", w.observer.token, []byte(`{"name":"small tenant"}`), 201, nil); err != nil {
			return err
		}
		seen.post = append(seen.post, d)
	}
	return nil
}

// addAndSubmit creates a batch of spec, adds its payments and submits it,
// and returns the time of it all.
func addAndSubmit(ctx context.Context, c *client, o *org, spec batchSpec, chunk int) (time.Duration, error) {
	start := time.Now()
	id, err := createBatch(ctx, c, o, "tenants "+spec.tag)
	if err != nil {
		return 0, err
	}
	if _, err := addPayments(ctx, c, o, id, spec, min(chunk, spec.n)); err != nil {
		return 0, err
	}
	if _, err := submit(ctx, c, o, id, spec); err != nil {
		return 0, err
	}
	return time.Since(start), nil
}

func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// tenantsJSON is the --tenants mode's last line: seconds, and the small
// tenant's latencies in ms over every pair's tenants run.
type tenantsJSON struct {
	Store         string    `json:"store"`
	Mode          string    `json:"mode"`
	Tenants       int       `json:"tenants"`
	Replicas      int       `json:"replicas"`
	Payments      int       `json:"payments"`
	Pairs         int       `json:"pairs"`
	TenantsS      float64   `json:"tenants_s"`
	OneOrgS       float64   `json:"one_org_s"`
	TenantsRatio  float64   `json:"tenants_ratio"`
	OtherP99      float64   `json:"other_tenant_p99_ms"`
	OtherGetP99   float64   `json:"other_tenant_get_p99_ms"`
	OtherPostP99  float64   `json:"other_tenant_post_p99_ms"`
	OtherRequests int       `json:"other_tenant_requests"`
	LedgerOK      bool      `json:"ledger_ok"`
	PeakRSSMB     float64   `json:"peak_rss_mb"`
	SchedP99      float64   `json:"sched_latency_p99_ms"`
	SchedP999     float64   `json:"sched_latency_p999_ms"`
	PoolWaits     int64     `json:"pool_waits"`
	PoolWaitMS    float64   `json:"pool_wait_ms"`
	BulkGate      int       `json:"bulk_concurrency"`
	TenantsRuns   []float64 `json:"tenants_s_runs"`
	OneOrgRuns    []float64 `json:"one_org_s_runs"`
}

func writeTenants(e *env, replicas int, one, all []time.Duration, seen observed, ok bool) error {
	cfg := e.cfg
	j := tenantsJSON{
		Store: engineOf(cfg.DatabaseURL), Mode: "tenants", Tenants: cfg.Tenants, Replicas: replicas, Payments: cfg.Payments, Pairs: cfg.Pairs,
		TenantsS: secs(median(all)), OneOrgS: secs(median(one)), TenantsRatio: ratio(median(all), median(one)),
		OtherP99: ms(p99(slices.Concat(seen.get, seen.post))), OtherGetP99: ms(p99(seen.get)), OtherPostP99: ms(p99(seen.post)),
		OtherRequests: len(seen.get) + len(seen.post), LedgerOK: ok, PeakRSSMB: peakRSSMB(), TenantsRuns: runs(all), OneOrgRuns: runs(one),
		BulkGate: cfg.BulkConcurrency,
	}
	j.addWaits(seen.waits)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse tenants: %s, %d organisations at once through %d replica(s) against one, %d payments, %d pairs (medians)\n\n",
		j.Store, j.Tenants, j.Replicas, j.Payments, j.Pairs)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(t, "%d organisations, %d payments each\t%.3f s\t%s\n", j.Tenants, j.Payments/j.Tenants, j.TenantsS, list(j.TenantsRuns))
	fmt.Fprintf(t, "one organisation, %d payments\t%.3f s\t%s\n", j.Payments, j.OneOrgS, list(j.OneOrgRuns))
	fmt.Fprintf(t, "ratio\t%.2f\n", j.TenantsRatio)
	fmt.Fprintf(t, "another organisation meanwhile, p99\t%.2f ms\tGET /batches/{id} %.2f ms, POST /batches %.2f ms, %d requests\n",
		j.OtherP99, j.OtherGetP99, j.OtherPostP99, j.OtherRequests)
	fmt.Fprintf(t, "meanwhile, the Go scheduler's latency\tp99 %.2f ms, p99.9 %.2f ms\n", j.SchedP99, j.SchedP999)
	fmt.Fprintf(t, "meanwhile, waits for a pooled connection (or SQLite's writer)\t%d, %.1f ms in all\n", j.PoolWaits, j.PoolWaitMS)
	fmt.Fprintf(t, "ledger\t%s\n", okText(ok))
	t.Flush()
	b.WriteByte('\n')
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := cfg.Out.Write(b.Bytes())
	return err
}

// percentile is the p-th percentile of ds; 0 for none.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)*p/100]
}

func p99(ds []time.Duration) time.Duration { return percentile(ds, 99) }

// addWaits puts the pairs' waits in j: the worst pair's percentiles, every
// pair's pool waits.
func (j *tenantsJSON) addWaits(ws []waitsSeen) {
	for _, w := range ws {
		j.SchedP99, j.SchedP999 = max(j.SchedP99, ms(w.SchedP99)), max(j.SchedP999, ms(w.SchedP999))
		j.PoolWaits += w.PoolWaits
		j.PoolWaitMS += ms(w.PoolWait)
	}
}
