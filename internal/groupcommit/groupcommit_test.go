package groupcommit

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestGroupCommit: calls that arrive while a group runs share the next
// group; a group that fails is run again one call at a time, so only the
// failing call sees its error; a panic is an error, not a hang.
func TestGroup(t *testing.T) {
	errBad := errors.New("bad")
	release := make(chan struct{})
	var mu sync.Mutex
	var sizes []int
	g := New(1, 8, func(_ context.Context, group []int) ([]int, error) {
		mu.Lock()
		sizes = append(sizes, len(group))
		first := len(sizes) == 1
		mu.Unlock()
		if first {
			<-release // the first group holds the lead while the rest queue
		}
		out := make([]int, len(group))
		for i, n := range group {
			switch n {
			case 13:
				return nil, errBad
			case 14:
				panic("fourteen")
			}
			out[i] = n * 2
		}
		return out, nil
	})

	const calls = 20
	outs, errs := make([]int, calls), make([]error, calls)
	var wg sync.WaitGroup
	wg.Go(func() { outs[0], errs[0] = g.Do(t.Context(), 0) })
	waitFor(t, "the first call to lead", func() bool { mu.Lock(); defer mu.Unlock(); return len(sizes) == 1 })
	for i := 1; i < calls; i++ {
		wg.Go(func() { outs[i], errs[i] = g.Do(t.Context(), i) })
	}
	waitFor(t, "every other call to queue", func() bool { g.mu.Lock(); defer g.mu.Unlock(); return len(g.queue) == calls-1 })
	close(release)
	wg.Wait()

	for i := range calls {
		switch i {
		case 13:
			if !errors.Is(errs[i], errBad) {
				t.Errorf("call 13: %v, want its own error", errs[i])
			}
		case 14:
			if errs[i] == nil {
				t.Errorf("call 14 panicked, but answered %d", outs[i])
			}
		default:
			if errs[i] != nil || outs[i] != 2*i {
				t.Errorf("call %d: %d, %v; want %d", i, outs[i], errs[i], 2*i)
			}
		}
	}
	// The 19 queued calls ran in groups of 8, 8 and 3, and each group with
	// 13 or 14 in it ran again one call at a time.
	groups := slices.DeleteFunc(slices.Clone(sizes[1:]), func(n int) bool { return n == 1 })
	if sizes[0] != 1 || !slices.Equal(groups, []int{8, 8, 3}) || len(sizes) == 4 {
		t.Errorf("group sizes %v: want 1, then 8, 8 and 3, a failed one followed by its calls alone", sizes)
	}
	if g.running != 0 || len(g.queue) != 0 {
		t.Errorf("after the last call: running %v with %d queued", g.running, len(g.queue))
	}
}

// waitFor waits, for at most ten seconds, until ok.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); runtime.Gosched() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 10 s for %s", what)
		}
	}
}
