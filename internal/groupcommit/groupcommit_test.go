package groupcommit

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
	"testing"
	"testing/synctest"
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

// sleeper is a run that takes took a group, whatever its size, and
// records the sizes: time in a synctest bubble is the test's.
type sleeper struct {
	took  time.Duration
	mu    sync.Mutex
	sizes []int
}

func (s *sleeper) run(_ context.Context, group []int) ([]int, error) {
	s.mu.Lock()
	s.sizes = append(s.sizes, len(group))
	s.mu.Unlock()
	time.Sleep(s.took)
	return slices.Clone(group), nil
}

// closedLoop has clients callers each call g rounds times, thinking for
// think between its calls, as HTTP clients with a request in flight each
// do; it returns when all are done.
func closedLoop(t *testing.T, g *Group[int, int], clients, rounds int, think time.Duration) {
	var wg sync.WaitGroup
	for k := range clients {
		wg.Go(func() {
			for i := range rounds {
				if out, err := g.Do(t.Context(), k*1000+i); err != nil || out != k*1000+i {
					t.Errorf("client %d call %d: %d, %v", k, i, out, err)
				}
				time.Sleep(think)
			}
		})
	}
	wg.Wait()
}

// TestGroupWaitsForReturningCallers: eight callers that each send their
// next request a little after their last is answered form groups of all
// eight (one group at a time), or of four (two at once), not the groups
// of one or two that the moment of each arrival would make; and the
// groups run no slower than that: a group waits for callers who are on
// their way, never for the full wait.
func TestGroupWaitsForReturningCallers(t *testing.T) {
	for _, leaders := range []int{1, 2} {
		synctest.Test(t, func(t *testing.T) {
			s := &sleeper{took: time.Millisecond}
			g := New(leaders, 128, s.run)
			const clients, rounds = 8, 50
			start := time.Now()
			closedLoop(t, g, clients, rounds, 100*time.Microsecond)
			took := time.Since(start)
			want := clients / leaders
			t.Logf("%d leaders: groups of %v in %v", leaders, s.sizes, took)
			// The first groups find the callers arriving for the first time.
			steady := s.sizes[4:]
			for i, n := range steady {
				if n != want && i < len(steady)-leaders {
					t.Fatalf("%d leaders: groups of %v; want %d from the fifth on", leaders, s.sizes, want)
				}
			}
			// Each group's cycle is its run and the callers' way back.
			if most := time.Duration(rounds+4) * (time.Millisecond + 100*time.Microsecond); took > most {
				t.Errorf("%d leaders: %d rounds took %v, want at most %v", leaders, rounds, took, most)
			}
		})
	}
}

// TestLoneCallerRunsAtOnce: a caller alone is never made to wait for
// others, whether it calls again and again or arrives after a busy spell
// has ended.
func TestLoneCallerRunsAtOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sleeper{took: time.Millisecond}
		g := New(2, 128, s.run)
		for i := range 20 {
			start := time.Now()
			if _, err := g.Do(t.Context(), i); err != nil {
				t.Fatal(err)
			}
			if took := time.Since(start); took != s.took {
				t.Fatalf("call %d alone took %v, want the group's %v", i, took, s.took)
			}
		}
		closedLoop(t, g, 8, 10, 100*time.Microsecond)
		time.Sleep(5 * time.Millisecond) // longer than a group takes
		start := time.Now()
		if _, err := g.Do(t.Context(), 1); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != s.took {
			t.Errorf("a call alone after eight callers left took %v, want %v", took, s.took)
		}
	})
}

// TestGroupTakesEveryoneQueued: the callers that arrive while a group runs
// form the next group together, up to max, however they arrived.
func TestGroupTakesEveryoneQueued(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sleeper{took: 10 * time.Millisecond}
		g := New(1, 16, s.run)
		var wg sync.WaitGroup
		wg.Go(func() { g.Do(t.Context(), 0) })
		synctest.Wait() // the first call runs alone
		for i := 1; i <= 20; i++ {
			time.Sleep(100 * time.Microsecond)
			wg.Go(func() { g.Do(t.Context(), i) })
		}
		wg.Wait()
		if !slices.Equal(s.sizes, []int{1, 16, 4}) {
			t.Errorf("groups of %v; want 1, then the 20 that queued meanwhile: 16 (the most) and 4", s.sizes)
		}
	})
}

// TestWaitIsBounded: after a slow group, a caller whose fellows do not
// come back waits for them at most maxWait, not as long as that group ran.
func TestWaitIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &sleeper{took: time.Second}
		g := New(1, 128, s.run)
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Go(func() { g.Do(t.Context(), i) })
		}
		wg.Wait() // groups of 1 and 3: four callers lately
		start := time.Now()
		if _, err := g.Do(t.Context(), 9); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took != maxWait+s.took {
			t.Errorf("the one caller back took %v, want its wait of %v and the group's %v", took, maxWait, s.took)
		}
	})
}
