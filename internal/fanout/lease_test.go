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
	l := NewLeases(3*time.Second, func() time.Time { return now }, func(ids []string, from, until time.Time) error {
		if !from.Equal(now) || !until.Equal(now.Add(3*time.Second)) {
			t.Errorf("extend from %v until %v at %v, want a lease from now", from, until, now)
		}
		slices.Sort(ids)
		calls = append(calls, ids)
		if fail {
			return errors.New("database out of reach")
		}
		return nil
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
