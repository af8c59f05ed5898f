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
// claimed").
//
// A claim is lost, and starts nothing more, when another process may have
// taken its rows: its lease ran out before a heartbeat extended it (the
// process stalled, or the database was out of reach), a renewal returned
// only after the lease had ended, or a renewal left out a row the claim
// still holds (another process took it). Its attempts already in flight
// end, and their outcomes are written only where the rows are still this
// process's.
type Leases struct {
	lease time.Duration
	now   func() time.Time
	// extend sets the lease of the rows ids names that owner still holds
	// and whose lease has not ended at now to until, and returns the ids
	// of the rows it renewed.
	extend func(ids []string, now, until time.Time) ([]string, error)

	mu    sync.Mutex
	holds map[*Hold]struct{}
}

// Hold is the lease of one claim's rows.
type Hold struct {
	lease time.Duration
	mu    sync.Mutex
	// rows are the claim's rows not yet written: true while a write of
	// its outcome (or its hand-back) is under way, which may clear the
	// row's lease before a renewal reaches it.
	rows  map[string]bool
	until time.Time
	lost  bool
}

// NewLeases returns the leases of one delivery worker: each lease d long,
// extended through extend.
func NewLeases(d time.Duration, now func() time.Time, extend func(ids []string, now, until time.Time) ([]string, error)) *Leases {
	return &Leases{lease: d, now: now, extend: extend, holds: map[*Hold]struct{}{}}
}

// Hold starts keeping the rows ids names, claimed until until, leased;
// Drop stops it.
func (l *Leases) Hold(ids []string, until time.Time) *Hold {
	h := &Hold{lease: l.lease, until: until, rows: make(map[string]bool, len(ids))}
	for _, id := range ids {
		h.rows[id] = false
	}
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
// of extend; a hold whose lease has already ended is lost instead, and so
// is one the renewal did not keep (Hold.renewed).
func (l *Leases) Beat() {
	now := l.now()
	live, ids := l.live(now)
	if len(ids) == 0 {
		return
	}
	until := now.Add(l.lease)
	renewed, err := l.extend(ids, now, until)
	if err != nil {
		return // the holds keep the lease they had, and are lost once it ends
	}
	back := l.now()
	kept := make(map[string]bool, len(renewed))
	for _, id := range renewed {
		kept[id] = true
	}
	for _, h := range live {
		if !h.renewed(kept, back, until) {
			l.Drop(h)
		}
	}
}

// live lists the holds whose lease has not ended at now, and their rows;
// the others are lost and no longer kept.
func (l *Leases) live(now time.Time) (live []*Hold, ids []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for h := range l.holds {
		h.mu.Lock()
		if h.until.After(now) && !h.lost {
			live = append(live, h)
			for id := range h.rows {
				ids = append(ids, id)
			}
		} else {
			h.lost = true
			delete(l.holds, h)
		}
		h.mu.Unlock()
	}
	return live, ids
}

// renewed takes a renewal until until that returned at back and renewed
// the rows kept names, and reports whether h is still held. The renewal
// is h's only if it returned before h's lease ended and renewed every row
// h holds whose outcome is not being written (a row being written may
// have had its lease cleared first); otherwise another process may hold
// some of h's rows, and h is lost.
func (h *Hold) renewed(kept map[string]bool, back, until time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.lost || !back.Before(h.until) {
		h.lost = true
		return false
	}
	for id, writing := range h.rows {
		if !writing && !kept[id] {
			h.lost = true
			return false
		}
	}
	if h.until.Before(until) {
		h.until = until
	}
	return true
}

// Write runs write, which writes the outcomes of (or hands back) the rows
// ids names, and once it has succeeded stops renewing them: a renewal
// that misses them meanwhile is not a loss.
func (h *Hold) Write(ids []string, write func() error) error {
	h.mu.Lock()
	for _, id := range ids {
		if _, ok := h.rows[id]; ok {
			h.rows[id] = true
		}
	}
	h.mu.Unlock()
	err := write()
	if err == nil {
		h.mu.Lock()
		for _, id := range ids {
			delete(h.rows, id)
		}
		h.mu.Unlock()
	}
	return err
}

// MayStart reports whether an attempt may start at now: the hold is not
// lost and a heartbeat extended it within the last half lease, so the
// database is in reach and the lease will not end before the next one.
func (h *Hold) MayStart(now time.Time) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return !h.lost && now.Add(h.lease/2).Before(h.until)
}
