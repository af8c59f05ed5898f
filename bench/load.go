package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"text/tabwriter"
	"time"
)

// The --http-load mode: read endpoints under cfg.Connections concurrent
// keep-alive connections, each sending its next request as soon as the
// last one's answer is read, for cfg.Duration per endpoint, one endpoint
// after the other. GET /healthz is the yardstick: it runs no use case,
// only the store's ping (one trivial query on the read pool), so the other
// endpoints' throughput is read against it.

// loadBatches is how many batches the organisation has, so that
// GET /batches?take=100 returns a full page.
const loadBatches = 150

// loadWarmup runs before each measurement, unmeasured: connections open
// and caches fill.
const loadWarmup = 2 * time.Second

type endpoint struct {
	name, path string
	token      bool // needs the organisation's access token
}

// loadFigures is one endpoint's result.
type loadFigures struct {
	requests int
	rps      float64
	p50, p99 time.Duration
}

func runLoad(ctx context.Context, e *env) error {
	e.say("%s: setting up %d batches", engineOf(e.cfg.DatabaseURL), loadBatches)
	o, err := setup(ctx, e, 1_000_000_00, 10)
	if err != nil {
		return err
	}
	var target string
	for i := range loadBatches {
		id, err := createBatch(ctx, e.client, o, fmt.Sprintf("load %d", i))
		if err != nil {
			return err
		}
		target = id
	}
	// The batch read is a submitted one, its summary filled.
	spec := o.newBatch("load", 1000, true)
	if _, err := addPayments(ctx, e.client, o, target, spec, e.cfg.Chunk); err != nil {
		return err
	}
	if _, err := submit(ctx, e.client, o, target, spec); err != nil {
		return err
	}

	endpoints := []endpoint{
		{"GET /healthz", "/healthz", false},
		{"GET /batches/{id}", "/batches/" + target, true},
		{"GET /batches?take=100", "/batches?take=100", true},
	}
	figures := make([]loadFigures, len(endpoints))
	for k, ep := range endpoints {
		token := ""
		if ep.token {
			token = o.token
		}
		e.say("%s: %d connections for %v", ep.name, e.cfg.Connections, e.cfg.Duration)
		if _, err := hammer(ctx, e.client, ep.path, token, e.cfg.Connections, loadWarmup); err != nil {
			return err
		}
		stop := func() {}
		if k == 1 {
			if stop, err = e.profile("batch"); err != nil {
				return err
			}
		}
		figures[k], err = hammer(ctx, e.client, ep.path, token, e.cfg.Connections, e.cfg.Duration)
		stop()
		if err != nil {
			return err
		}
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeLoad(e, endpoints, figures, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// hammer sends GET path on conns connections until d has passed, and
// measures each exchange from sending to the last byte read.
func hammer(ctx context.Context, c *client, path, token string, conns int, d time.Duration) (loadFigures, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	latencies := make([][]time.Duration, conns)
	errs := make([]error, conns)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for w := range conns {
		wg.Go(func() {
			for time.Now().Before(deadline) {
				took, err := c.call(ctx, "GET", path, token, nil, 200, nil)
				if err != nil {
					errs[w] = err
					cancel()
					return
				}
				latencies[w] = append(latencies[w], took)
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	for _, err := range errs {
		if err != nil {
			return loadFigures{}, err
		}
	}
	all := slices.Concat(latencies...)
	slices.Sort(all)
	f := loadFigures{requests: len(all), rps: float64(len(all)) / elapsed.Seconds()}
	if len(all) > 0 {
		f.p50, f.p99 = all[len(all)*50/100], all[len(all)*99/100]
	}
	return f, nil
}

// loadJSON is the --http-load mode's last line; latencies in ms.
type loadJSON struct {
	Store          string  `json:"store"`
	Mode           string  `json:"mode"`
	Connections    int     `json:"connections"`
	DurationS      float64 `json:"duration_s"`
	HealthzRPS     float64 `json:"healthz_rps"`
	HealthzP50     float64 `json:"healthz_p50_ms"`
	HealthzP99     float64 `json:"healthz_p99_ms"`
	BatchRPS       float64 `json:"batch_rps"`
	BatchP50       float64 `json:"batch_p50_ms"`
	BatchP99       float64 `json:"batch_p99_ms"`
	BatchesRPS     float64 `json:"batches_rps"`
	BatchesP50     float64 `json:"batches_p50_ms"`
	BatchesP99     float64 `json:"batches_p99_ms"`
	BatchVsHealthz float64 `json:"batch_vs_healthz"`
	PeakRSSMB      float64 `json:"peak_rss_mb"`
	LedgerOK       bool    `json:"ledger_ok"`
}

func writeLoad(e *env, endpoints []endpoint, f []loadFigures, ok bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse HTTP load: %s, %d connections, %v per endpoint\n\n", engineOf(e.cfg.DatabaseURL), e.cfg.Connections, e.cfg.Duration)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "endpoint\trequests\treq/s\tp50\tp99")
	for k, ep := range endpoints {
		fmt.Fprintf(t, "%s\t%d\t%.0f\t%.2f ms\t%.2f ms\n", ep.name, f[k].requests, f[k].rps, ms(f[k].p50), ms(f[k].p99))
	}
	t.Flush()
	j := loadJSON{
		Store: engineOf(e.cfg.DatabaseURL), Mode: "http-load", Connections: e.cfg.Connections, DurationS: e.cfg.Duration.Seconds(),
		HealthzRPS: round1(f[0].rps), HealthzP50: ms(f[0].p50), HealthzP99: ms(f[0].p99),
		BatchRPS: round1(f[1].rps), BatchP50: ms(f[1].p50), BatchP99: ms(f[1].p99),
		BatchesRPS: round1(f[2].rps), BatchesP50: ms(f[2].p50), BatchesP99: ms(f[2].p99),
		PeakRSSMB: peakRSSMB(), LedgerOK: ok,
	}
	if f[0].rps > 0 {
		j.BatchVsHealthz = float64(int64(f[1].rps/f[0].rps*100+0.5)) / 100
	}
	fmt.Fprintf(&b, "\nGET /batches/{id} does %.2f of GET /healthz's requests per second\nledger: %s\n\n", j.BatchVsHealthz, okText(ok))
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}

// ms is a duration in milliseconds, to the hundredth.
func ms(d time.Duration) float64 { return float64(d.Microseconds()/10) / 100 }

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
