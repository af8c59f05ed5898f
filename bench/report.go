package bench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// paymentsJSON is the payments mode's last line. Times are seconds;
// the *_runs lists hold every pair's figure, in order, for the medians.
type paymentsJSON struct {
	Store           string  `json:"store"`
	Payments        int     `json:"payments"`
	Chunk           int     `json:"chunk"`
	Pairs           int     `json:"pairs"`
	AddS            float64 `json:"add_s"`
	AddFloorS       float64 `json:"add_floor_s"`
	AddRatio        float64 `json:"add_ratio"`
	SubmitS         float64 `json:"submit_s"`
	SubmitFloorS    float64 `json:"submit_floor_s"`
	SubmitRatio     float64 `json:"submit_ratio"`
	RegisterS       float64 `json:"register_s"`
	Registered      int     `json:"registered"`
	RegisterWorkers int     `json:"register_workers"`
	// RegisterPerS is the rate of the registrations above: payees of the
	// first batch alone, so every one writes the same batch and holding
	// account (--registration measures payees spread over organisations).
	RegisterPerS    float64   `json:"register_per_s"`
	ReverseS        float64   `json:"reverse_s"`
	Reversed        int       `json:"reversed"`
	DeliverPerS     float64   `json:"deliver_per_s"` // notifications sent a second, one process (deliver.go)
	Delivered       int       `json:"delivered"`
	WebhooksPerS    float64   `json:"webhooks_per_s,omitempty"`
	WebhooksSent    int       `json:"webhooks_delivered,omitempty"`
	PeakRSSMB       float64   `json:"peak_rss_mb"`
	RunPeakRSSMB    float64   `json:"run_peak_rss_mb"`
	LedgerOK        bool      `json:"ledger_ok"`
	AddRuns         []float64 `json:"add_s_runs"`
	AddFloorRuns    []float64 `json:"add_floor_s_runs"`
	SubmitRuns      []float64 `json:"submit_s_runs"`
	SubmitFloorRuns []float64 `json:"submit_floor_s_runs"`
}

func (r result) json() paymentsJSON {
	add, addFloor, sub, subFloor := median(r.add), median(r.addFloor), median(r.submit), median(r.subFloor)
	return paymentsJSON{
		Store: r.store, Payments: r.payments, Chunk: r.chunk, Pairs: r.pairs,
		AddS: secs(add), AddFloorS: secs(addFloor), AddRatio: ratio(add, addFloor),
		SubmitS: secs(sub), SubmitFloorS: secs(subFloor), SubmitRatio: ratio(sub, subFloor),
		RegisterS: secs(r.register), Registered: r.registered, RegisterWorkers: r.workers,
		RegisterPerS: perSecond(r.registered, r.register),
		ReverseS:     secs(r.reverse), Reversed: r.reversed,
		DeliverPerS: perSecond(r.delivered, r.deliver), Delivered: r.delivered,
		WebhooksPerS: perSecond(r.webhooksSent, r.webhooks), WebhooksSent: r.webhooksSent,
		PeakRSSMB: r.peakRSS, RunPeakRSSMB: r.runPeakRSS, LedgerOK: r.ledgerOK,
		AddRuns: runs(r.add), AddFloorRuns: runs(r.addFloor), SubmitRuns: runs(r.submit), SubmitFloorRuns: runs(r.subFloor),
	}
}

// write prints the table and then, last, the JSON line.
func (r result) write(w io.Writer) error {
	j := r.json()
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse bench: %s, %d payments per batch in requests of %d, %d pairs (medians)\n\n", r.store, r.payments, r.chunk, r.pairs)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "phase\tservice\tfloor\tratio\truns: service / floor")
	fmt.Fprintf(t, "add\t%.3f s\t%.3f s\t%.2f\t%s / %s\n", j.AddS, j.AddFloorS, j.AddRatio, list(j.AddRuns), list(j.AddFloorRuns))
	fmt.Fprintf(t, "submit\t%.3f s\t%.3f s\t%.2f\t%s / %s\n", j.SubmitS, j.SubmitFloorS, j.SubmitRatio, list(j.SubmitRuns), list(j.SubmitFloorRuns))
	fmt.Fprintf(t, "register\t%.3f s\t\t\t%d members, %d in flight\n", j.RegisterS, j.Registered, j.RegisterWorkers)
	fmt.Fprintf(t, "reverse\t%.3f s\t\t\t%d payments, ReverseDue\n", j.ReverseS, j.Reversed)
	fmt.Fprintf(t, "deliver\t%.3f s\t\t\t%d notifications, %.0f a second\n", secs(r.deliver), j.Delivered, j.DeliverPerS)
	if r.webhooksSent > 0 {
		fmt.Fprintf(t, "webhooks\t%.3f s\t\t\t%d deliveries, %.0f a second\n", secs(r.webhooks), j.WebhooksSent, j.WebhooksPerS)
	}
	fmt.Fprintf(t, "peak RSS\t%.0f MB\t\t\tadd and submit; %.0f MB over the whole run\n", j.PeakRSSMB, j.RunPeakRSSMB)
	fmt.Fprintf(t, "ledger\t%s\n", okText(j.LedgerOK))
	t.Flush()
	b.WriteByte('\n')
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeJSONLine(b *bytes.Buffer, v any) error {
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b.Write(line)
	b.WriteByte('\n')
	return nil
}

func okText(ok bool) string {
	if ok {
		return "ok"
	}
	return "PROBLEMS (see above)"
}

// median of the runs; the mean of the middle two for an even count.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// secs is a duration in seconds, to the millisecond.
func secs(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(int64(float64(a)/float64(b)*100+0.5)) / 100
}

func runs(ds []time.Duration) []float64 {
	out := make([]float64, len(ds))
	for i, d := range ds {
		out[i] = secs(d)
	}
	return out
}

func list(fs []float64) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = strconv.FormatFloat(f, 'f', 3, 64)
	}
	return strings.Join(s, " ")
}

// peakRSSMB is the process's peak resident set (VmHWM) since it started or
// since resetPeakRSS. The server runs in this process, so it is the
// server's peak, with the client's share.
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 64)
			return float64(int64(kb/1024*10+0.5)) / 10
		}
	}
	return 0
}

// resetPeakRSS starts the peak resident set (VmHWM) again from the current
// resident set (Linux: clear_refs). Where that fails, peakRSSMB keeps
// counting from the start of the process.
func resetPeakRSS() {
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
