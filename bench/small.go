package bench

import (
	"bytes"
	"context"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse/internal/secrets"
)

// The --small-requests mode (docs/benchmarks.md, "Small requests"): what
// one small request costs the service, and how close its writes come to
// the database's own pace. The service runs as a child process (`disburse
// serve`, small_serve.go) over the bench's database; vegeta loads it on
// loopback (small_load.go):
//
//  1. GET /accounts, authenticated, open loop at --rate for --duration: the
//     service's CPU a request (read_cpu_ms).
//  2. POST /batches from --connections workers, closed loop, for
//     --duration: the sustained rate (writes_per_s).
//  3. The floor: the same statements, one transaction a request, from as
//     many clients, without HTTP (small_floor.go): writes_floor_per_s.
//  4. POST /batches open loop at half the sustained rate: its p99 and the
//     service's CPU a request (write_cpu_ms).

// smallWarmup runs before the reads are measured: connections open,
// statements are prepared, caches fill.
const smallWarmup = 2 * time.Second

// smallRun is what the mode measured.
type smallRun struct {
	read, sustained, half smallFigures
	readCPU, halfCPU      time.Duration
	floorPerS             float64
	halfRate              int
	servePeakRSSMB        float64
}

func runSmallRequests(ctx context.Context, e *env) error {
	e.say("%s: small requests, the service as a child process", engineOf(e.cfg.DatabaseURL))
	o, err := setup(ctx, e, 1_000_00, 0)
	if err != nil {
		return err
	}
	args := smallFloorArgsOf(o)
	p, err := startServe(ctx, e.cfg.Executable, e.cfg.DatabaseURL, e.client.admin)
	if err != nil {
		return err
	}
	run, err := measureSmall(ctx, e, p, o.token, args)
	run.servePeakRSSMB = peakRSSMBOf(p.cmd.Process.Pid)
	p.stop()
	if err != nil {
		return err
	}
	if err := e.profileSmall(ctx, o.token, run.halfRate); err != nil {
		return err
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeSmall(e, run, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// measureSmall runs the mode's four steps against the child p.
func measureSmall(ctx context.Context, e *env, p *servedProcess, token string, floorArgs smallFloorArgs) (smallRun, error) {
	var run smallRun
	read := smallTarget{method: "GET", url: p.base + "/accounts", token: token, want: 200}
	write := smallTarget{method: "POST", url: p.base + "/batches", token: token, body: []byte(`{"name":"small write"}`), want: 201}
	d, conns := e.cfg.Duration, e.cfg.Connections
	if _, err := attackAt(ctx, read, e.cfg.Rate, smallWarmup, conns); err != nil {
		return run, err
	}
	e.say("GET /accounts at %d a second for %v", e.cfg.Rate, d)
	var err error
	if run.read, run.readCPU, err = withCPU(p, func() (smallFigures, error) { return attackAt(ctx, read, e.cfg.Rate, d, conns) }); err != nil {
		return run, err
	}
	e.say("POST /batches from %d workers for %v", conns, d)
	if run.sustained, err = attackFlat(ctx, write, conns, d); err != nil {
		return run, err
	}
	e.say("the floor: the same statements from %d clients for %v", conns, d)
	if run.floorPerS, err = writesFloor(ctx, e.cfg.DatabaseURL, floorArgs, conns, d); err != nil {
		return run, err
	}
	run.halfRate = max(1, int(run.sustained.perSecond()/2))
	e.say("POST /batches at %d a second for %v", run.halfRate, d)
	run.half, run.halfCPU, err = withCPU(p, func() (smallFigures, error) { return attackAt(ctx, write, run.halfRate, d, conns) })
	return run, err
}

// withCPU runs load and returns its figures and the CPU time p spent meanwhile.
func withCPU(p *servedProcess, load func() (smallFigures, error)) (smallFigures, time.Duration, error) {
	before, err := p.cpu()
	if err != nil {
		return smallFigures{}, 0, err
	}
	f, err := load()
	if err != nil {
		return f, 0, err
	}
	after, err := p.cpu()
	return f, after - before, err
}

// smallFloorArgsOf are the floor's values for o: its token's hash and its
// payout account; the floor reads the API key its token came from itself.
func smallFloorArgsOf(o *org) smallFloorArgs {
	return smallFloorArgs{tokenHash: secrets.Hash(o.token), org: o.id, account: o.accountID}
}

// profileSmall, with --profile-phase small, profiles the bench's own
// in-process server (the child has no profiler) under the reads at --rate,
// then the writes at rate, each for --duration.
func (e *env) profileSmall(ctx context.Context, token string, rate int) error {
	stop, err := e.profile("small")
	if err != nil || !e.profiled {
		return err
	}
	defer stop()
	base := e.client.base
	e.say("profiling the in-process server")
	read := smallTarget{method: "GET", url: base + "/accounts", token: token, want: 200}
	write := smallTarget{method: "POST", url: base + "/batches", token: token, body: []byte(`{"name":"small write"}`), want: 201}
	if _, err := attackAt(ctx, read, e.cfg.Rate, e.cfg.Duration, e.cfg.Connections); err != nil {
		return err
	}
	_, err = attackAt(ctx, write, rate, e.cfg.Duration, e.cfg.Connections)
	return err
}

// smallJSON is the --small-requests mode's last line; times in ms.
type smallJSON struct {
	Store            string  `json:"store"`
	Mode             string  `json:"mode"`
	Connections      int     `json:"connections"`
	DurationS        float64 `json:"duration_s"`
	ReadRate         int     `json:"read_rate"`
	ReadRequests     int     `json:"read_requests"`
	ReadCPUMs        float64 `json:"read_cpu_ms"`
	ReadP50Ms        float64 `json:"read_p50_ms"`
	ReadP99Ms        float64 `json:"read_p99_ms"`
	WritesPerS       float64 `json:"writes_per_s"`
	WritesFloorPerS  float64 `json:"writes_floor_per_s"`
	WritesRatio      float64 `json:"writes_ratio"`
	WritesSustainP99 float64 `json:"writes_sustained_p99_ms"`
	HalfRate         int     `json:"writes_half_rate"`
	HalfRequests     int     `json:"writes_half_requests"`
	WriteCPUMs       float64 `json:"write_cpu_ms"`
	HalfP50Ms        float64 `json:"writes_half_p50_ms"`
	HalfP99Ms        float64 `json:"writes_half_p99_ms"`
	ServePeakRSSMB   float64 `json:"serve_peak_rss_mb"`
	LedgerOK         bool    `json:"ledger_ok"`
}

func (r smallRun) json(e *env, ok bool) smallJSON {
	j := smallJSON{
		Store: engineOf(e.cfg.DatabaseURL), Mode: "small-requests", Connections: e.cfg.Connections, DurationS: e.cfg.Duration.Seconds(),
		ReadRate: e.cfg.Rate, ReadRequests: r.read.requests, ReadCPUMs: perRequestMs(r.readCPU, r.read.requests),
		ReadP50Ms: ms(r.read.p50), ReadP99Ms: ms(r.read.p99),
		WritesPerS: round1(r.sustained.perSecond()), WritesFloorPerS: round1(r.floorPerS), WritesSustainP99: ms(r.sustained.p99),
		HalfRate: r.halfRate, HalfRequests: r.half.requests, WriteCPUMs: perRequestMs(r.halfCPU, r.half.requests),
		HalfP50Ms: ms(r.half.p50), HalfP99Ms: ms(r.half.p99), ServePeakRSSMB: r.servePeakRSSMB, LedgerOK: ok,
	}
	if r.floorPerS > 0 {
		j.WritesRatio = round3(r.sustained.perSecond() / r.floorPerS)
	}
	return j
}

// perRequestMs is cpu over n requests, in ms to the thousandth.
func perRequestMs(cpu time.Duration, n int) float64 {
	if n == 0 {
		return 0
	}
	return round3(cpu.Seconds() * 1000 / float64(n))
}

func writeSmall(e *env, r smallRun, ok bool) error {
	j := r.json(e, ok)
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse small requests: %s, the service as a child process, %d connections, %v a step\n\n", j.Store, j.Connections, e.cfg.Duration)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "step\trequests\ta second\tp50\tp99\tservice CPU a request")
	fmt.Fprintf(t, "GET /accounts, open loop\t%d\t%d\t%.2f ms\t%.2f ms\t%.3f ms\n", j.ReadRequests, j.ReadRate, j.ReadP50Ms, j.ReadP99Ms, j.ReadCPUMs)
	fmt.Fprintf(t, "POST /batches, %d workers\t%d\t%.0f\t%.2f ms\t%.2f ms\t\n", j.Connections, r.sustained.requests, j.WritesPerS, ms(r.sustained.p50), j.WritesSustainP99)
	fmt.Fprintf(t, "its statements' floor, %d clients\t\t%.0f\t\t\t\n", j.Connections, j.WritesFloorPerS)
	fmt.Fprintf(t, "POST /batches, open loop\t%d\t%d\t%.2f ms\t%.2f ms\t%.3f ms\n", j.HalfRequests, j.HalfRate, j.HalfP50Ms, j.HalfP99Ms, j.WriteCPUMs)
	t.Flush()
	fmt.Fprintf(&b, "\nPOST /batches runs at %.3f of its floor\nledger: %s\n\n", j.WritesRatio, okText(ok))
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}
