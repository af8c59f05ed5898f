package fanout

import (
	"errors"
	"slices"
	"testing"
	"time"
)

// TestLeases: a beat renews every live hold's rows in one call and lets
// their attempts start; a failed renewal leaves the leases to run out, and
// a hold whose lease ran out before a beat is lost for good.
func TestLeases(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	now := t0
	var calls [][]string
	fail := false
	l := NewLeases(3*time.Second, func() time.Time { return now }, func(ids []string, from, until time.Time) ([]string, error) {
		if !from.Equal(now) || !until.Equal(now.Add(3*time.Second)) {
			t.Errorf("extend from %v until %v at %v, want a lease from now", from, until, now)
		}
		slices.Sort(ids)
		calls = append(calls, ids)
		if fail {
			return nil, errors.New("database out of reach")
		}
		return ids, nil
	})
	a := l.Hold([]string{"a1", "a2"}, t0.Add(3*time.Second))
	b := l.Hold([]string{"b1"}, t0.Add(3*time.Second))
	if !a.MayStart(t0) {
		t.Error("a fresh claim may not start")
	}

	now = t0.Add(time.Second)
	l.Beat()
	if want := [][]string{{"a1", "a2", "b1"}}; !slices.EqualFunc(calls, want, slices.Equal) {
		t.Errorf("renewals %v, want one of every row %v", calls, want)
	}
	// Renewed until t0+4s: at t0+2.4s more than half a lease is left.
	if !a.MayStart(t0.Add(2400 * time.Millisecond)) {
		t.Error("a renewed claim may not start")
	}
	if a.MayStart(t0.Add(2600 * time.Millisecond)) {
		t.Error("a claim may start with less than half a lease left")
	}

	l.Drop(b)
	fail = true
	now = t0.Add(2 * time.Second)
	l.Beat()
	if a.MayStart(now.Add(time.Second)) {
		t.Error("a claim whose renewal failed may start past half its lease")
	}

	fail = false
	now = t0.Add(4 * time.Second) // a's lease ended at t0+4s
	l.Beat()
	if len(calls) != 2 {
		t.Errorf("renewals %v: a lapsed hold was renewed", calls)
	}
	now = t0.Add(5 * time.Second)
	if a.MayStart(now) {
		t.Error("a lost claim may start")
	}
}

// TestRenewalThatLandsAfterTheLease: a renewal that returns only after the
// hold's lease ended (another process may have claimed its rows meanwhile,
// and the renewal then renewed none of them) loses the hold; a later beat
// does not win it back, and no attempt of it starts.
func TestRenewalThatLandsAfterTheLease(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	now := t0
	slow := true
	l := NewLeases(3*time.Second, func() time.Time { return now }, func(ids []string, from, until time.Time) ([]string, error) {
		if slow {
			now = t0.Add(3500 * time.Millisecond) // past the claim's lease, which ended at t0+3s
			slow = false
		}
		return nil, nil // another process holds the rows now: nothing was renewed
	})
	h := l.Hold([]string{"a1", "a2"}, t0.Add(3*time.Second))
	now = t0.Add(time.Second)
	l.Beat() // renews until t0+4s, but returns at t0+3.5s
	now = t0.Add(3600 * time.Millisecond)
	l.Beat() // on time
	if h.MayStart(now) {
		t.Error("a claim whose renewal landed after its lease may start")
	}
}

// TestRenewalThatMissesARow: a renewal that leaves out a row a claim holds
// (another process took it) loses that claim and no other; a row whose
// outcome is being written when the renewal misses it is no loss.
func TestRenewalThatMissesARow(t *testing.T) {
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	now := t0
	taken := map[string]bool{"a2": true, "c2": true} // a2 by another process; c2's lease cleared by its write
	l := NewLeases(3*time.Second, func() time.Time { return now }, func(ids []string, _, _ time.Time) ([]string, error) {
		var kept []string
		for _, id := range ids {
			if !taken[id] {
				kept = append(kept, id)
			}
		}
		return kept, nil
	})
	a := l.Hold([]string{"a1", "a2"}, t0.Add(3*time.Second))
	b := l.Hold([]string{"b1"}, t0.Add(3*time.Second))
	c := l.Hold([]string{"c1", "c2"}, t0.Add(3*time.Second))
	now = t0.Add(time.Second)
	if err := c.Write([]string{"c2"}, func() error { l.Beat(); return nil }); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(2400 * time.Millisecond) // past half of the first lease, within half of the renewed one
	if a.MayStart(later) {
		t.Error("a claim whose renewal missed one of its rows may start")
	}
	if !b.MayStart(later) {
		t.Error("a claim renewed in full may not start")
	}
	if !c.MayStart(later) {
		t.Error("a claim whose missed row was being written may not start")
	}
	now = t0.Add(2 * time.Second)
	l.Beat()
	if !c.MayStart(t0.Add(3400 * time.Millisecond)) {
		t.Error("a claim whose written row is missed by a later renewal may not start")
	}
}
