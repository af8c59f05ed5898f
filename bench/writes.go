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

// The --writes-during-submit mode: while one organisation submits a batch
// of cfg.Payments, a small write (POST /batches) is sent again and again
// by that organisation and by another one, one request at a time each,
// and their latencies are measured; then the same writes alone, with no
// submit running, as the yardstick. It shows what a large submit makes
// other writers wait for (docs/benchmarks.md).

// quietWrites is how long the writes run alone for the yardstick.
const quietWrites = 3 * time.Second

// writeFigures is one writer's result.
type writeFigures struct {
	requests      int
	p50, p99, max time.Duration
}

func runWritesDuringSubmit(ctx context.Context, e *env) error {
	e.say("%s: two organisations, a batch of %d", engineOf(e.cfg.DatabaseURL), e.cfg.Payments)
	big, err := setup(ctx, e, 10_000_000_000_00, 10)
	if err != nil {
		return err
	}
	other, err := setup(ctx, e, 1_000_00, 0)
	if err != nil {
		return err
	}
	batchID, err := createBatch(ctx, e.client, big, "large")
	if err != nil {
		return err
	}
	spec := big.newBatch("large", e.cfg.Payments, true)
	if _, err := addPayments(ctx, e.client, big, batchID, spec, e.cfg.Chunk); err != nil {
		return err
	}

	e.say("writes alone for %v", quietWrites)
	quietCtx, cancel := context.WithTimeout(ctx, quietWrites)
	quiet, err := writeWhile(quietCtx, e.client, big, other)
	cancel()
	if err != nil {
		return err
	}

	e.say("writes during the submit of %d payments", e.cfg.Payments)
	var busy [2]writeFigures
	var took time.Duration
	err = alongside(ctx,
		func(ctx context.Context) (err error) {
			busy, err = writeWhile(ctx, e.client, big, other)
			return err
		},
		func() (err error) {
			took, err = submit(ctx, e.client, big, batchID, spec)
			return err
		})
	if err != nil {
		return err
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeWrites(e, took, quiet, busy, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// writeWhile has the organisations same and other each create batches,
// one request at a time, until ctx ends; it returns each one's figures.
func writeWhile(ctx context.Context, c *client, same, other *org) ([2]writeFigures, error) {
	var figures [2]writeFigures
	var errs [2]error
	var wg sync.WaitGroup
	for k, o := range []*org{same, other} {
		wg.Go(func() {
			var took []time.Duration
			for ctx.Err() == nil {
				d, err := c.call(context.WithoutCancel(ctx), "POST", "/batches", o.token, []byte(`{"name":"small write"}`), 201, nil)
				if err != nil {
					errs[k] = err
					return
				}
				took = append(took, d)
			}
			slices.Sort(took)
			if n := len(took); n > 0 {
				figures[k] = writeFigures{requests: n, p50: took[n*50/100], p99: took[n*99/100], max: took[n-1]}
			}
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return figures, err
		}
	}
	return figures, nil
}

// writesJSON is the --writes-during-submit mode's last line; latencies in ms.
type writesJSON struct {
	Store         string  `json:"store"`
	Mode          string  `json:"mode"`
	Payments      int     `json:"payments"`
	SubmitS       float64 `json:"submit_s"`
	SameQuietP99  float64 `json:"same_org_quiet_p99_ms"`
	SameBusyP50   float64 `json:"same_org_p50_ms"`
	SameBusyP99   float64 `json:"same_org_p99_ms"`
	SameBusyMax   float64 `json:"same_org_max_ms"`
	OtherQuietP99 float64 `json:"other_org_quiet_p99_ms"`
	OtherBusyP50  float64 `json:"other_org_p50_ms"`
	OtherBusyP99  float64 `json:"other_org_p99_ms"`
	OtherBusyMax  float64 `json:"other_org_max_ms"`
	SameRequests  int     `json:"same_org_requests"`
	OtherRequests int     `json:"other_org_requests"`
	LedgerOK      bool    `json:"ledger_ok"`
	PeakRSSMB     float64 `json:"peak_rss_mb"`
}

func writeWrites(e *env, submitTook time.Duration, quiet, busy [2]writeFigures, ok bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse writes during a submit: %s, %d payments, submit %.2f s\n\n", engineOf(e.cfg.DatabaseURL), e.cfg.Payments, submitTook.Seconds())
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "POST /batches by\twhen\trequests\tp50\tp99\tmax")
	for k, who := range []string{"the same organisation", "another organisation"} {
		fmt.Fprintf(t, "%s\talone\t%d\t%.2f ms\t%.2f ms\t%.2f ms\n", who, quiet[k].requests, ms(quiet[k].p50), ms(quiet[k].p99), ms(quiet[k].max))
		fmt.Fprintf(t, "%s\tduring the submit\t%d\t%.2f ms\t%.2f ms\t%.2f ms\n", who, busy[k].requests, ms(busy[k].p50), ms(busy[k].p99), ms(busy[k].max))
	}
	t.Flush()
	fmt.Fprintf(&b, "\nledger: %s\n\n", okText(ok))
	j := writesJSON{
		Store: engineOf(e.cfg.DatabaseURL), Mode: "writes-during-submit", Payments: e.cfg.Payments, SubmitS: round3(submitTook.Seconds()),
		SameQuietP99: ms(quiet[0].p99), SameBusyP50: ms(busy[0].p50), SameBusyP99: ms(busy[0].p99), SameBusyMax: ms(busy[0].max),
		OtherQuietP99: ms(quiet[1].p99), OtherBusyP50: ms(busy[1].p50), OtherBusyP99: ms(busy[1].p99), OtherBusyMax: ms(busy[1].max),
		SameRequests: busy[0].requests, OtherRequests: busy[1].requests, LedgerOK: ok, PeakRSSMB: peakRSSMB(),
	}
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}

func round3(f float64) float64 { return float64(int64(f*1000+0.5)) / 1000 }
