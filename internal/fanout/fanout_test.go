package fanout

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestRun: every item is attempted once and its outcome recorded once;
// what mayStart refuses is handed back, unattempted, in the last record.
func TestRun(t *testing.T) {
	items := []int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	for _, c := range []struct {
		name     string
		allowed  int64
		wantDone int
	}{{"all", 100, 10}, {"stopped", 4, 4}} {
		t.Run(c.name, func(t *testing.T) {
			var starts atomic.Int64
			var mu sync.Mutex
			var recorded, handedBack []int
			lasts := 0
			n, err := Run(t.Context(), items, 3,
				func(context.Context, int) bool { return starts.Add(1) <= c.allowed },
				func(i int) int { return i * 10 },
				func(outcomes, unattempted []int) (bool, error) {
					mu.Lock()
					defer mu.Unlock()
					recorded = append(recorded, outcomes...)
					if unattempted != nil {
						lasts++
						handedBack = append(handedBack, unattempted...)
					}
					return false, nil
				})
			if err != nil || n != c.wantDone {
				t.Fatalf("Run = %d, %v; want %d, nil", n, err, c.wantDone)
			}
			// Which items mayStart refuses depends on the senders' order;
			// each item is recorded or handed back, once, in one last record.
			all := slices.Clone(handedBack)
			for _, o := range recorded {
				all = append(all, o/10)
			}
			slices.Sort(all)
			if len(recorded) != c.wantDone || !slices.Equal(all, items) || lasts != 1 {
				t.Errorf("recorded %v, handed back %v in %d last records; want %d recorded, the rest handed back in one", recorded, handedBack, lasts, c.wantDone)
			}
		})
	}
}

// TestRunAfterAFailedWrite: the outcomes of a failed record hold their
// slots until the last record; a sender waiting for one of those slots
// stops waiting, its item and the rest are handed back, and the failed
// outcome is recorded again, with them, in the last record.
func TestRunAfterAFailedWrite(t *testing.T) {
	slots := NewSlots(1, 0)
	var recorded, handedBack []int
	calls := 0
	done := make(chan error, 1)
	go func() {
		_, err := Run(t.Context(), []int{0, 1, 2, 3}, 4,
			func(ctx context.Context, _ int) bool { return slots.Wait(ctx, "") },
			func(i int) int { return i },
			func(outcomes, unattempted []int) (bool, error) {
				calls++
				var err error
				if calls == 1 {
					err = errors.New("the database went away")
				} else {
					recorded = append(recorded, outcomes...)
					handedBack = append(handedBack, unattempted...)
				}
				if Settled(unattempted, err) {
					for range outcomes {
						slots.Give("")
					}
				}
				return false, err
			})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run after a failed record: no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run still waits for a slot that only its last record gives back")
	}
	slices.Sort(handedBack)
	if !slices.Equal(recorded, []int{0}) || !slices.Equal(handedBack, []int{1, 2, 3}) || slots.Free() != 1 {
		t.Errorf("recorded %v, handed back %v, %d slots free; want [0], [1 2 3], 1", recorded, handedBack, slots.Free())
	}
}

// TestPace: no limit waits for nothing but an ended context.
func TestPace(t *testing.T) {
	p := NewPace(0)
	if !p.Wait(t.Context()) {
		t.Error("Wait with no limit = false")
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if p.Wait(ctx) || NewPace(1).Wait(ctx) {
		t.Error("Wait after the context ended = true")
	}
}

// TestIDs lists each item's id in order.
func TestIDs(t *testing.T) {
	got := IDs([]int{3, 1, 2}, func(i int) string { return string(rune('a' + i)) })
	if !slices.Equal(got, []string{"d", "b", "c"}) {
		t.Errorf("IDs = %v", got)
	}
}
