package bench

import (
	"database/sql"
	"math"
	"runtime/metrics"
	"time"
)

// What the tenants' run made the other requests of this process wait for
// (docs/benchmarks.md, "Many tenants at once"): the Go scheduler's latency,
// how long a goroutine made runnable (a request's handler woken by its
// socket or its database's answer) waited for a processor, and the store
// pools' waits for a connection. Both are the process's: both replicas,
// the tenants' clients and the ninth organisation's.

const schedLatencies = "/sched/latencies:seconds"

// pooled is a store with connection pools and, on SQLite, a writer lane
// in front of its write pool (sqlstore.Store).
type pooled interface {
	Pools() map[string]*sql.DB
	WriterWaits() (int64, time.Duration)
}

// waitsMark is the counters at the start of a run.
type waitsMark struct {
	sched     *metrics.Float64Histogram
	poolWaits int64
	poolWait  time.Duration
}

// waitsSeen is what the run added: the scheduler latency's 99th and
// 99.9th percentiles and the pools' waits.
type waitsSeen struct {
	SchedP99, SchedP999 time.Duration
	PoolWaits           int64
	PoolWait            time.Duration
}

func markWaits(stores []pooled) waitsMark {
	m := waitsMark{sched: readSched()}
	m.poolWaits, m.poolWait = poolWaits(stores)
	return m
}

// since is what was waited for from m until now.
func (m waitsMark) since(stores []pooled) waitsSeen {
	now := readSched()
	counts := make([]uint64, len(now.Counts))
	for i := range counts {
		counts[i] = now.Counts[i] - m.sched.Counts[i]
	}
	n, wait := poolWaits(stores)
	return waitsSeen{SchedP99: histogramPercentile(now.Buckets, counts, 0.99), SchedP999: histogramPercentile(now.Buckets, counts, 0.999),
		PoolWaits: n - m.poolWaits, PoolWait: wait - m.poolWait}
}

func readSched() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedLatencies}}
	metrics.Read(s)
	return s[0].Value.Float64Histogram()
}

// histogramPercentile is the upper bound of the bucket that holds the
// p-th fraction of counts (buckets has one more boundary than counts).
func histogramPercentile(buckets []float64, counts []uint64, p float64) time.Duration {
	var total uint64
	for _, c := range counts {
		total += c
	}
	want := uint64(float64(total)*p) + 1
	var seen uint64
	for i, c := range counts {
		seen += c
		if seen >= want {
			upper := buckets[i+1]
			if math.IsInf(upper, 1) {
				upper = buckets[i]
			}
			return time.Duration(upper * float64(time.Second))
		}
	}
	return 0
}

// poolWaits is the waits for a connection: the pools' and, where a lane
// hands out the one writer, the lane's (its pool then never waits).
func poolWaits(stores []pooled) (n int64, wait time.Duration) {
	for _, s := range stores {
		laneWaits, laneWait := s.WriterWaits()
		n, wait = n+laneWaits, wait+laneWait
		for _, db := range s.Pools() {
			st := db.Stats()
			n += st.WaitCount
			wait += st.WaitDuration
		}
	}
	return n, wait
}
