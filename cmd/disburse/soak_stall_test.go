package main

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"
)

// stallWatch notes when the test process itself went without the CPU (a
// tick due every stallTick that comes a second or more late), when the
// database took a second or more to answer, and, on PostgreSQL, the
// statements of the service that waited half a second or more for a
// lock. A process that stalls, or a renewal that waits, past a lease
// may lose it to another replica (docs/operations.md, "The lease and its
// heartbeat").
type stallWatch struct {
	mu     sync.Mutex
	stalls []fault // from when a tick was due to when it came
	slow   []fault // from when a probe was sent to when it answered
	locked []fault // from when a statement started to when it was seen still waiting for a lock
}

// lockWaits is the probe on PostgreSQL: the service's statement that has
// waited longest for a lock, if any.
const lockWaits = `SELECT coalesce(max(extract(epoch FROM clock_timestamp() - query_start)), 0)::float8,
		coalesce((array_agg(left(query, 100) ORDER BY query_start))[1], '')
	FROM pg_stat_activity
	WHERE datname = current_database() AND application_name = 'disburse' AND wait_event_type = 'Lock'`

const stallTick = 50 * time.Millisecond

// watchStalls ticks, and asks db, until the test ends.
func watchStalls(t *testing.T, db *sql.DB, postgres bool) *stallWatch {
	w := &stallWatch{}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-quit:
				return
			case <-time.After(250 * time.Millisecond):
			}
			sent := time.Now()
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			var waited float64
			var query string
			if postgres {
				_ = db.QueryRowContext(ctx, lockWaits).Scan(&waited, &query)
			} else {
				_ = db.QueryRowContext(ctx, "SELECT 1").Scan(&waited)
			}
			cancel()
			answered := time.Now()
			w.mu.Lock()
			if answered.Sub(sent) >= time.Second {
				w.slow = append(w.slow, fault{from: sent, to: answered, what: "probe"})
			}
			if wait := time.Duration(waited * float64(time.Second)); postgres && wait >= 500*time.Millisecond {
				w.locked = append(w.locked, fault{from: sent.Add(-wait), to: sent, what: query})
			}
			w.mu.Unlock()
		}
	})
	wg.Go(func() {
		due := time.Now().Add(stallTick)
		for {
			select {
			case <-quit:
				return
			case now := <-time.After(time.Until(due)):
				if now.Sub(due) >= time.Second {
					w.mu.Lock()
					w.stalls = append(w.stalls, fault{from: due, to: now, what: "stall"})
					w.mu.Unlock()
				}
				due = now.Add(stallTick)
			}
		}
	})
	t.Cleanup(func() { close(quit); wg.Wait() })
	return w
}

// stalled is what watchStalls saw within a window of time.
type stalled struct {
	stall, answer time.Duration // the test process's longest stall; the database's longest answer
	lock          fault         // the longest wait for a lock seen
}

func (s stalled) String() string {
	l := fmt.Sprintf("the test process's longest stall %v, the database's longest answer %v",
		s.stall.Round(100*time.Millisecond), s.answer.Round(100*time.Millisecond))
	if wait := s.lock.to.Sub(s.lock.from); wait > 0 {
		l += fmt.Sprintf(", the longest wait for a lock %v (%s)", wait.Round(100*time.Millisecond), s.lock.what)
	}
	return l
}

// within is what was seen ending within window before at (or up to a
// second after it); with a zero window, in the whole run.
func (w *stallWatch) within(at time.Time, window time.Duration) stalled {
	w.mu.Lock()
	defer w.mu.Unlock()
	in := func(s fault) bool {
		return window == 0 || s.to.Before(at.Add(time.Second)) && s.to.After(at.Add(-window))
	}
	var out stalled
	for _, s := range w.stalls {
		if in(s) {
			out.stall = max(out.stall, s.to.Sub(s.from))
		}
	}
	for _, s := range w.slow {
		if in(s) {
			out.answer = max(out.answer, s.to.Sub(s.from))
		}
	}
	for _, s := range w.locked {
		if in(s) && s.to.Sub(s.from) > out.lock.to.Sub(out.lock.from) {
			out.lock = s
		}
	}
	return out
}
