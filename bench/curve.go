package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse"
)

// curvePoint is one batch size of the curve: medians of its pairs, and
// the same as seconds per 100,000 payments, the unit the plot draws.
type curvePoint struct {
	Payments            int     `json:"payments"`
	AddS                float64 `json:"add_s"`
	AddFloorS           float64 `json:"add_floor_s"`
	AddRatio            float64 `json:"add_ratio"`
	SubmitS             float64 `json:"submit_s"`
	SubmitFloorS        float64 `json:"submit_floor_s"`
	SubmitRatio         float64 `json:"submit_ratio"`
	AddPer100kS         float64 `json:"add_per_100k_s"`
	AddFloorPer100kS    float64 `json:"add_floor_per_100k_s"`
	SubmitPer100kS      float64 `json:"submit_per_100k_s"`
	SubmitFloorPer100kS float64 `json:"submit_floor_per_100k_s"`
}

// curveJSON is the curve mode's last line. The spreads are the largest
// cost per payment over the smallest, less one, across the sizes: 0.25
// means the dearest size pays a quarter more per payment than the
// cheapest (docs/benchmarks.md, "The cost curve").
type curveJSON struct {
	Store        string       `json:"store"`
	Pairs        int          `json:"pairs"`
	Points       []curvePoint `json:"points"`
	AddSpread    float64      `json:"add_per_payment_spread"`
	SubmitSpread float64      `json:"submit_per_payment_spread"`
	PeakRSSMB    float64      `json:"peak_rss_mb"`
	LedgerOK     bool         `json:"ledger_ok"`
	PNG          string       `json:"png"`
}

// runCurve measures add and submit, the service's against the floor's in
// alternating pairs as the default mode does, at each batch size, on one
// organisation whose float covers them all, then checks the ledger and
// draws the curve.
func runCurve(ctx context.Context, e *env) error {
	cfg := e.cfg
	var float disburse.Money
	for _, n := range cfg.CurveSizes {
		float += disburse.Money(2*cfg.Pairs) * disburse.Money(n) * (100_00 + 5_00)
	}
	largest := slices.Max(cfg.CurveSizes)
	e.say("%s: the cost curve at %v payments, %d pairs each", engineOf(cfg.DatabaseURL), cfg.CurveSizes, cfg.Pairs)
	o, err := setup(ctx, e, float, min(maxMembers, largest/2))
	if err != nil {
		return err
	}
	out := curveJSON{Store: engineOf(cfg.DatabaseURL), Pairs: cfg.Pairs}
	for _, n := range cfg.CurveSizes {
		r := &result{store: out.Store, tag: fmt.Sprintf("c%d-", n), payments: n, chunk: min(cfg.Chunk, n), pairs: cfg.Pairs}
		e.say("%d payments", n)
		if _, _, err := r.runPairs(ctx, e, o); err != nil {
			return err
		}
		out.Points = append(out.Points, r.curvePoint())
		out.PeakRSSMB = max(out.PeakRSSMB, r.peakRSS)
	}
	out.AddSpread = spread(out.Points, func(p curvePoint) float64 { return p.AddPer100kS })
	out.SubmitSpread = spread(out.Points, func(p curvePoint) float64 { return p.SubmitPer100kS })
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	out.LedgerOK = ok
	out.PNG = cfg.CurvePNG
	if out.PNG == "" {
		out.PNG = "curve-" + out.Store + ".png"
	}
	if err := drawCurve(out); err != nil {
		return err
	}
	if err := out.write(e); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

func (r *result) curvePoint() curvePoint {
	add, addFloor, sub, subFloor := median(r.add), median(r.addFloor), median(r.submit), median(r.subFloor)
	per100k := func(d time.Duration) float64 { return d.Seconds() * 100_000 / float64(r.payments) }
	return curvePoint{
		Payments: r.payments,
		AddS:     secs(add), AddFloorS: secs(addFloor), AddRatio: ratio(add, addFloor),
		SubmitS: secs(sub), SubmitFloorS: secs(subFloor), SubmitRatio: ratio(sub, subFloor),
		AddPer100kS: per100k(add), AddFloorPer100kS: per100k(addFloor),
		SubmitPer100kS: per100k(sub), SubmitFloorPer100kS: per100k(subFloor),
	}
}

// spread is the largest of a cost over the smallest, less one.
func spread(points []curvePoint, cost func(curvePoint) float64) float64 {
	lo, hi := cost(points[0]), cost(points[0])
	for _, p := range points[1:] {
		lo, hi = min(lo, cost(p)), max(hi, cost(p))
	}
	if lo <= 0 {
		return 0
	}
	return hi/lo - 1
}

// write prints the table and then, last, the JSON line.
func (c curveJSON) write(e *env) error {
	w := e.cfg.Out
	fmt.Fprintf(w, "Disburse bench: the cost curve, %s, %d pairs per size (medians), seconds per 100,000 payments\n\n", c.Store, c.Pairs)
	t := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "payments\tadd\tfloor\tratio\tsubmit\tfloor\tratio")
	for _, p := range c.Points {
		fmt.Fprintf(t, "%d\t%.3f\t%.3f\t%.2f\t%.3f\t%.3f\t%.2f\n", p.Payments,
			p.AddPer100kS, p.AddFloorPer100kS, p.AddRatio, p.SubmitPer100kS, p.SubmitFloorPer100kS, p.SubmitRatio)
	}
	if err := t.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "\nper-payment spread across sizes: add %.0f%%, submit %.0f%%; ledger sound: %v; plot: %s\n\n",
		100*c.AddSpread, 100*c.SubmitSpread, c.LedgerOK, c.PNG)
	line, err := json.Marshal(c)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", line)
	return err
}
