package bench

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The --small-requests mode's load: vegeta's attacker (the project's load
// tool), on loopback, either open loop at a fixed rate, each request sent
// on its schedule whether or not the ones before it have been answered, or
// closed loop, a fixed number of workers each sending its next request when
// its last is answered: the sustained rate at that concurrency.

// smallTarget is one request the load repeats, and the status it must get.
type smallTarget struct {
	method, url, token string
	body               []byte
	want               int
}

func (t smallTarget) vegeta() vegeta.Target {
	h := http.Header{"Authorization": {"Bearer " + t.token}}
	if t.body != nil {
		h.Set("Content-Type", "application/json")
	}
	return vegeta.Target{Method: t.method, URL: t.url, Body: t.body, Header: h}
}

// smallFigures is one attack's outcome.
type smallFigures struct {
	requests int
	took     time.Duration // from the first request sent to the last answer
	p50, p99 time.Duration
}

func (f smallFigures) perSecond() float64 {
	if f.took <= 0 {
		return 0
	}
	return float64(f.requests) / f.took.Seconds()
}

// attackAt sends t at rate a second for d, open loop.
func attackAt(ctx context.Context, t smallTarget, rate int, d time.Duration, conns int) (smallFigures, error) {
	a := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Connections(conns), vegeta.HTTP2(false), vegeta.Timeout(time.Minute))
	return attack(ctx, a, t, vegeta.Rate{Freq: rate, Per: time.Second}, d)
}

// attackFlat sends t from workers workers, closed loop, for d.
func attackFlat(ctx context.Context, t smallTarget, workers int, d time.Duration) (smallFigures, error) {
	a := vegeta.NewAttacker(vegeta.KeepAlive(true), vegeta.Connections(workers), vegeta.HTTP2(false), vegeta.Timeout(time.Minute),
		vegeta.Workers(uint64(workers)), vegeta.MaxWorkers(uint64(workers)))
	return attack(ctx, a, t, vegeta.Rate{Freq: 0}, d)
}

// attack runs a and requires every answer to be t.want: an answer the
// bench does not expect (a 5xx, a refused budget) ends the run with it.
func attack(ctx context.Context, a *vegeta.Attacker, t smallTarget, pace vegeta.Pacer, d time.Duration) (smallFigures, error) {
	stop := context.AfterFunc(ctx, func() { a.Stop() })
	defer stop()
	var (
		latencies   []time.Duration
		first, last time.Time
		bad         *vegeta.Result
	)
	for r := range a.Attack(vegeta.NewStaticTargeter(t.vegeta()), pace, d, t.method+" "+t.url) {
		if int(r.Code) != t.want && bad == nil {
			bad = r
			a.Stop()
		}
		if first.IsZero() || r.Timestamp.Before(first) {
			first = r.Timestamp
		}
		if end := r.End(); end.After(last) {
			last = end
		}
		latencies = append(latencies, r.Latency)
	}
	if bad != nil {
		return smallFigures{}, fmt.Errorf("%s %s: status %d, want %d: %s %s", t.method, t.url, bad.Code, t.want, bad.Error, bad.Body)
	}
	if err := ctx.Err(); err != nil {
		return smallFigures{}, err
	}
	slices.Sort(latencies)
	f := smallFigures{requests: len(latencies), took: last.Sub(first)}
	if n := len(latencies); n > 0 {
		f.p50, f.p99 = latencies[n*50/100], latencies[n*99/100]
	}
	return f, nil
}
