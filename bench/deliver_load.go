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

// The --load-during-delivery mode: does draining a large outbox slow the
// API? A batch of cfg.Payments payments to non-members is submitted (one
// SMS each in the outbox). Then GET /batches/{id} is sent at cfg.Rate
// requests a second over cfg.Connections connections, first alone for
// cfg.Duration, then while this process delivers that outbox to the local
// gateway as serve's delivery worker would, until it is drained.
//
// The requests keep to a schedule, whatever the answers' latency: each
// connection sends its next request at its next slot, or at once when it
// is behind, and a latency is counted from the slot, not from the moment
// the request could finally go. A stall of the server is then seen in full
// by every request scheduled during it, as clients arriving at that rate
// would see it.

// pacedFigures is one phase's latencies.
type pacedFigures struct {
	requests      int
	elapsed       time.Duration
	p50, p99, max time.Duration
}

func runLoadDuringDelivery(ctx context.Context, e *env) error {
	n := e.cfg.Payments
	e.say("%s: submitting a batch of %d payments to non-members", engineOf(e.cfg.DatabaseURL), n)
	o, err := setup(ctx, e, disburse.Money(n)*(100_00+5_00), 0)
	if err != nil {
		return err
	}
	id, err := createBatch(ctx, e.client, o, "outbox")
	if err != nil {
		return err
	}
	spec := o.newBatch("outbox", n, false)
	if _, err := addPayments(ctx, e.client, o, id, spec, e.cfg.Chunk); err != nil {
		return err
	}
	if _, err := submit(ctx, e.client, o, id, spec); err != nil {
		return err
	}
	path := "/batches/" + id

	e.say("GET %s at %d a second for %v, alone", path, e.cfg.Rate, e.cfg.Duration)
	quietCtx, cancel := context.WithTimeout(ctx, e.cfg.Duration)
	quiet, err := paced(quietCtx, e.client, path, o.token, e.cfg.Rate, e.cfg.Connections)
	cancel()
	if err != nil {
		return err
	}

	e.say("GET %s at %d a second while the outbox is delivered, %d at once", path, e.cfg.Rate, e.cfg.DeliveryConcurrency)
	var busy pacedFigures
	var delivered int
	var took time.Duration
	err = alongside(ctx,
		func(ctx context.Context) (err error) {
			busy, err = paced(ctx, e.client, path, o.token, e.cfg.Rate, e.cfg.Connections)
			return err
		},
		func() (err error) {
			delivered, took, err = deliverNotifications(ctx, e, 0)
			return err
		})
	if err != nil {
		return err
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeLoadDuringDelivery(e, quiet, busy, delivered, took, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// paced sends GET path at rate requests a second in all, spread over conns
// connections, until ctx ends, and measures each from its slot.
func paced(ctx context.Context, c *client, path, token string, rate, conns int) (pacedFigures, error) {
	interval := time.Duration(float64(time.Second) * float64(conns) / float64(rate))
	latencies := make([][]time.Duration, conns)
	errs := make([]error, conns)
	start := time.Now()
	var wg sync.WaitGroup
	for w := range conns {
		wg.Go(func() {
			slot := start.Add(interval * time.Duration(w) / time.Duration(conns))
			for {
				if wait := time.Until(slot); wait > 0 {
					select {
					case <-ctx.Done():
						return
					case <-time.After(wait):
					}
				}
				if ctx.Err() != nil {
					return
				}
				// The phase's end is not the request's: one cut short
				// by it would count as an error.
				if _, err := c.call(context.WithoutCancel(ctx), "GET", path, token, nil, 200, nil); err != nil {
					errs[w] = err
					return
				}
				latencies[w] = append(latencies[w], time.Since(slot))
				slot = slot.Add(interval)
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return pacedFigures{}, err
		}
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	f := pacedFigures{requests: len(all), elapsed: time.Since(start)}
	if len(all) > 0 {
		f.p50, f.p99, f.max = all[len(all)*50/100], all[len(all)*99/100], all[len(all)-1]
	}
	return f, nil
}

// deliveryLoadJSON is the --load-during-delivery mode's last line;
// latencies in ms.
type deliveryLoadJSON struct {
	Store          string  `json:"store"`
	Mode           string  `json:"mode"`
	Payments       int     `json:"payments"`
	Rate           int     `json:"rate"`
	Connections    int     `json:"connections"`
	Concurrency    int     `json:"delivery_concurrency"`
	QuietRequests  int     `json:"quiet_requests"`
	QuietP50       float64 `json:"quiet_p50_ms"`
	QuietP99       float64 `json:"quiet_p99_ms"`
	QuietMax       float64 `json:"quiet_max_ms"`
	DuringRequests int     `json:"during_requests"`
	DuringRPS      float64 `json:"during_rps"`
	DuringP50      float64 `json:"during_p50_ms"`
	DuringP99      float64 `json:"during_p99_ms"`
	DuringMax      float64 `json:"during_max_ms"`
	Delivered      int     `json:"delivered"`
	DeliverS       float64 `json:"deliver_s"`
	DeliverPerS    float64 `json:"deliver_per_s"`
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	LedgerOK       bool    `json:"ledger_ok"`
}

func writeLoadDuringDelivery(e *env, quiet, busy pacedFigures, delivered int, took time.Duration, ok bool) error {
	j := deliveryLoadJSON{
		Store: engineOf(e.cfg.DatabaseURL), Mode: "load-during-delivery", Payments: e.cfg.Payments,
		Rate: e.cfg.Rate, Connections: e.cfg.Connections, Concurrency: e.cfg.DeliveryConcurrency,
		QuietRequests: quiet.requests, QuietP50: ms(quiet.p50), QuietP99: ms(quiet.p99), QuietMax: ms(quiet.max),
		DuringRequests: busy.requests, DuringP50: ms(busy.p50), DuringP99: ms(busy.p99), DuringMax: ms(busy.max),
		Delivered: delivered, DeliverS: secs(took), DeliverPerS: perSecond(delivered, took),
		PeakRSSMB: peakRSSMB(), LedgerOK: ok,
	}
	if busy.elapsed > 0 {
		j.DuringRPS = round1(float64(busy.requests) / busy.elapsed.Seconds())
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse load during delivery: %s, GET /batches/{id} at %d a second on %d connections, %d sends in flight\n\n",
		j.Store, j.Rate, j.Connections, j.Concurrency)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "phase\trequests\tp50\tp99\tmax")
	fmt.Fprintf(t, "alone\t%d\t%.2f ms\t%.2f ms\t%.2f ms\n", j.QuietRequests, j.QuietP50, j.QuietP99, j.QuietMax)
	fmt.Fprintf(t, "during delivery\t%d\t%.2f ms\t%.2f ms\t%.2f ms\n", j.DuringRequests, j.DuringP50, j.DuringP99, j.DuringMax)
	t.Flush()
	fmt.Fprintf(&b, "\ndelivered %d notifications in %.3f s: %.0f a second\nledger: %s\n\n", j.Delivered, j.DeliverS, j.DeliverPerS, okText(ok))
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}
