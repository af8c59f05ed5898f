package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime/debug"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse"
)

// The --export mode: a submitted batch of cfg.Payments, half settled and
// half pending, written by the floor (off the clock: the database's own
// quickest way), then GET /batches/{id}/payments.csv read to its last
// byte by a client that counts its lines. It reports the export's time
// and the process's peak resident set over the export alone: the
// server's, with the client's small share (docs/benchmarks.md, "The
// export").

// exportFigures is what one export measured: its time, and the
// process's CPU time over it, the server's with the client's small
// share, which a machine busy with other work does not stretch.
type exportFigures struct {
	took, cpu    time.Duration
	lines, bytes int64
}

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func runExport(ctx context.Context, e *env) error {
	n := e.cfg.Payments
	e.say("%s: an organisation and a submitted batch of %d, by the floor", engineOf(e.cfg.DatabaseURL), n)
	o, err := setup(ctx, e, disburse.Money(n)*(100_00+5_00), min(maxMembers, n/2))
	if err != nil {
		return err
	}
	spec := o.newBatch("export", n, true)
	batchID, err := createBatch(ctx, e.client, o, "export")
	if err != nil {
		return err
	}
	if err := floorBatch(ctx, e, o, batchID, spec); err != nil {
		return err
	}
	// What building the batch left behind is not the export's.
	debug.FreeOSMemory()
	resetPeakRSS()
	base := peakRSSMB()
	e.say("exporting %d payments", n)
	stop, err := e.profile("export")
	if err != nil {
		return err
	}
	cpu := cpuTime()
	f, err := export(ctx, e.client, o, batchID)
	f.cpu = cpuTime() - cpu
	stop()
	if err != nil {
		return err
	}
	if f.lines != int64(n)+1 {
		return fmt.Errorf("the export has %d lines, want a header and %d payments", f.lines, n)
	}
	return writeExport(e, f, base, peakRSSMB())
}

// floorBatch writes spec's payments into the batch batchID and submits
// them, straight into the database.
func floorBatch(ctx context.Context, e *env, o *org, batchID string, spec batchSpec) error {
	fl, err := openFloor(ctx, e.cfg.DatabaseURL, o, e.clock)
	if err != nil {
		return err
	}
	defer fl.close()
	if _, err := fl.add(ctx, batchID, spec); err != nil {
		return fmt.Errorf("floor add: %w", err)
	}
	if _, err := fl.submit(ctx, batchID, spec); err != nil {
		return fmt.Errorf("floor submit: %w", err)
	}
	return nil
}

// export reads the batch's CSV file to its end, counting its lines and
// bytes, from sending the request to the last byte.
func export(ctx context.Context, c *client, o *org, batchID string) (exportFigures, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", c.base+"/batches/"+batchID+"/payments.csv", nil)
	if err != nil {
		return exportFigures{}, err
	}
	req.Header.Set("Authorization", "Bearer "+o.token)
	start := time.Now()
	res, err := c.http.Do(req)
	if err != nil {
		return exportFigures{}, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(res.Body, 2048))
		return exportFigures{}, fmt.Errorf("GET /batches/{id}/payments.csv: status %d: %s", res.StatusCode, msg)
	}
	lc := &lineCounter{}
	written, err := io.Copy(lc, res.Body)
	if err != nil {
		return exportFigures{}, fmt.Errorf("GET /batches/{id}/payments.csv: after %d bytes: %w", written, err)
	}
	return exportFigures{took: time.Since(start), lines: lc.lines, bytes: written}, nil
}

// lineCounter counts the line breaks written to it and keeps nothing.
type lineCounter struct{ lines int64 }

func (l *lineCounter) Write(p []byte) (int, error) {
	l.lines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

// exportJSON is the --export mode's last line.
type exportJSON struct {
	Store     string  `json:"store"`
	Mode      string  `json:"mode"`
	Payments  int     `json:"payments"`
	ExportS   float64 `json:"export_s"`
	CPUS      float64 `json:"cpu_s"`
	RowsPerS  float64 `json:"rows_per_s"`
	MB        float64 `json:"mb"`
	BaseRSSMB float64 `json:"base_rss_mb"`
	PeakRSSMB float64 `json:"peak_rss_mb"`
	PageSize  int     `json:"page_size"`
}

func writeExport(e *env, f exportFigures, base, peak float64) error {
	var b bytes.Buffer
	mb := float64(f.bytes) / (1 << 20)
	fmt.Fprintf(&b, "Disburse export of a batch's results: %s, %d payments\n\n", engineOf(e.cfg.DatabaseURL), e.cfg.Payments)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(t, "GET /batches/{id}/payments.csv\t%.2f s\t%.0f rows a second\t%.1f MB, %.2f s of CPU\n", f.took.Seconds(), perSecond(int(f.lines-1), f.took), mb, f.cpu.Seconds())
	fmt.Fprintf(t, "peak RSS\t%.0f MB\t\tfrom %.0f MB before the export\n", peak, base)
	t.Flush()
	b.WriteString("\n")
	j := exportJSON{Store: engineOf(e.cfg.DatabaseURL), Mode: "export", Payments: e.cfg.Payments, ExportS: round3(f.took.Seconds()), CPUS: round3(f.cpu.Seconds()),
		RowsPerS: perSecond(int(f.lines-1), f.took), MB: round1(mb), BaseRSSMB: base, PeakRSSMB: peak, PageSize: disburse.DefaultPageSize}
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}
