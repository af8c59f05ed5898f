package main

import (
	"sync"
	"testing"
	"time"
)

// stallWatch notes when the test process itself went without the CPU: a
// tick due every stallTick that comes a second or more late. On a machine
// short of CPU the service's processes stall too, and a lease that a
// stalled process could not renew in time may pass to another replica
// (docs/operations.md, "The lease and its heartbeat").
type stallWatch struct {
	mu     sync.Mutex
	stalls []fault // from when a tick was due to when it came
}

const stallTick = 50 * time.Millisecond

// watchStalls ticks until the test ends.
func watchStalls(t *testing.T) *stallWatch {
	w := &stallWatch{}
	quit := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		due := time.Now().Add(stallTick)
		for {
			select {
			case <-quit:
				return
			case now := <-time.After(time.Until(due)):
				if now.Sub(due) >= time.Second {
					w.mu.Lock()
					w.stalls = append(w.stalls, fault{due, now})
					w.mu.Unlock()
				}
				due = now.Add(stallTick)
			}
		}
	}()
	t.Cleanup(func() { close(quit); <-done })
	return w
}

// longest is the longest stall that ended within window before at, and
// the longest of the whole run.
func (w *stallWatch) longest(at time.Time, window time.Duration) (near, ever time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.stalls {
		d := s.to.Sub(s.from)
		ever = max(ever, d)
		if s.to.Before(at.Add(time.Second)) && s.to.After(at.Add(-window)) {
			near = max(near, d)
		}
	}
	return near, ever
}
