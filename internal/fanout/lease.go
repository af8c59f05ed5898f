package fanout

import (
	"sync"
	"time"
)

// Leases keeps the claims one process is working on leased while it lives:
// a heartbeat every lease/3 extends, in one statement for all of them, the
// lease of every row those claims still hold, so that an attempt may take
// longer than the lease, and the rows of a process that dies are free again
// within one lease (docs/operations.md, "Background work and how it is
// claimed"). A claim whose lease ran out before a heartbeat extended it (the
// process stalled, or the database was out of reach) is lost: another
// process may have taken its rows, so it starts nothing more.
type Leases struct {
	lease time.Duration
	now   func() time.Time
	// extend sets the lease of the rows ids names that owner still holds
	// and whose lease has not ended at now to until.
	extend func(ids []string, now, until time.Time) error

	mu    sync.Mutex
	holds map[*Hold]struct{}
}

// Hold is the lease of one claim's rows.
type Hold struct {
	ids   []string
	lease time.Duration
	mu    sync.Mutex
	until time.Time
	lost  bool
}

// NewLeases returns the leases of one delivery worker: each lease d long,
// extended through extend.
func NewLeases(d time.Duration, now func() time.Time, extend func(ids []string, now, until time.Time) error) *Leases {
	return &Leases{lease: d, now: now, extend: extend, holds: map[*Hold]struct{}{}}
}

// Hold starts keeping the rows ids names, claimed until until, leased;
// Drop stops it.
func (l *Leases) Hold(ids []string, until time.Time) *Hold {
	h := &Hold{ids: ids, lease: l.lease, until: until}
	l.mu.Lock()
	l.holds[h] = struct{}{}
	l.mu.Unlock()
	return h
}

// Drop stops extending h's rows: its claim has recorded or handed back
// every one.
func (l *Leases) Drop(h *Hold) {
	l.mu.Lock()
	delete(l.holds, h)
	l.mu.Unlock()
}

// Start runs the heartbeat until the returned stop is called; stop waits
// for a heartbeat in progress.
func (l *Leases) Start() (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(l.lease/3, time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				l.Beat()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}

// Beat extends every live hold's rows by one lease from now, in one call
// of extend; a hold whose lease has already ended is lost instead.
func (l *Leases) Beat() {
	now := l.now()
	var live []*Hold
	var ids []string
	l.mu.Lock()
	for h := range l.holds {
		h.mu.Lock()
		if h.until.After(now) {
			live = append(live, h)
			ids = append(ids, h.ids...)
		} else {
			h.lost = true
			delete(l.holds, h)
		}
		h.mu.Unlock()
	}
	l.mu.Unlock()
	if len(ids) == 0 {
		return
	}
	until := now.Add(l.lease)
	if l.extend(ids, now, until) != nil {
		return // the holds keep the lease they had, and are lost once it ends
	}
	for _, h := range live {
		h.mu.Lock()
		if !h.lost && h.until.Before(until) {
			h.until = until
		}
		h.mu.Unlock()
	}
}

// MayStart reports whether an attempt may start at now: the hold is not
// lost and a heartbeat extended it within the last half lease, so the
// database is in reach and the lease will not end before the next one.
func (h *Hold) MayStart(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.lost && now.Add(h.lease/2).Before(h.until)
}
