package main

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// fleet is the soak's `disburse serve` processes on one database: the
// load sends each request to a live one at random, and the chaos kills
// and restarts them (on a new port each time).
type fleet struct {
	t      *testing.T
	start  func() *serveProcess
	mu     sync.Mutex
	procs  []*serveProcess // nil while one is being restarted
	all    []*serveProcess // every process started, for their logs
	faults []fault         // each kill or termination
	starts []fault         // each start, what names the process
}

func newFleet(t *testing.T, plan soakPlan, admin string) *fleet {
	t.Helper()
	f := &fleet{t: t, procs: make([]*serveProcess, plan.replicas)}
	f.start = func() *serveProcess {
		s := startServe(t, plan.bin, []string{"DISBURSE_NOTIFY_PROVIDER=log"}, "serve", "--listen", "127.0.0.1:0",
			"--database-url", plan.url, "--admin-token", admin, "--worker-interval", "200ms",
			"--webhook-allow-private", // the receiver is on 127.0.0.1
			"--rate-limit-organisation", "off", "--rate-limit-operator", "off", "--rate-limit-address", "off")
		f.mu.Lock()
		defer f.mu.Unlock()
		f.all = append(f.all, s)
		f.starts = append(f.starts, fault{from: time.Now(), what: fmt.Sprintf("start of pid %d", s.cmd.Process.Pid)})
		return s
	}
	for i := range f.procs {
		f.procs[i] = f.start()
	}
	return f
}

// pick returns a live process at random, or nil while none is.
func (f *fleet) pick() *serveProcess {
	f.mu.Lock()
	defer f.mu.Unlock()
	var live []*serveProcess
	for _, s := range f.procs {
		if s != nil {
			live = append(live, s)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[rand.IntN(len(live))]
}

// any returns the first live process, for the checks once the chaos has
// stopped and every process runs.
func (f *fleet) any() *serveProcess {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, s := range f.procs {
		if s != nil {
			return s
		}
	}
	f.t.Fatal("no process of the fleet runs")
	return nil
}

// kill9 kills process i with SIGKILL and waits for it to be gone.
func (f *fleet) kill9(i int) {
	f.mu.Lock()
	s := f.procs[i]
	f.procs[i] = nil
	f.mu.Unlock()
	struck := time.Now()
	if err := s.cmd.Process.Kill(); err != nil {
		f.t.Fatal(err)
	}
	<-s.done
	f.struck(struck, fmt.Sprintf("kill -9 of process %d", i))
}

// fault is when a kill or a termination struck, and when it was done.
type fault struct {
	from, to time.Time
	what     string
}

// faultGrace is how long after a fault what it cut short may still
// arrive: the requests a process wrote to its sockets before it died.
const faultGrace = 2 * time.Second

// struck notes a fault that struck at from and is done now.
func (f *fleet) struck(from time.Time, what string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, fault{from, time.Now(), what})
}

// faultBefore is the index of the first fault that may have cut short
// something that happened at first and was done again at again: the one
// whose repeat again is (a later fault may strike before the repeat
// arrives). False when none may have.
func (f *fleet) faultBefore(first, again time.Time) (int, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i, x := range f.faults {
		if first.Before(x.to.Add(faultGrace)) && again.After(x.from) {
			return i, true
		}
	}
	return 0, false
}

// repeatsByFault sums copies, the fault index of each repeated copy and
// how long after that fault's start it arrived, into a line for each kind
// of fault: how many faults, the most and the median copies one fault
// caused, and the longest and median wait from a fault to its copies.
func (f *fleet) repeatsByFault(copies map[int][]time.Duration) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	byKind := map[string][]int{}
	waits := map[string][]time.Duration{}
	for i, x := range f.faults {
		kind, _, _ := strings.Cut(x.what, " of ")
		byKind[kind] = append(byKind[kind], len(copies[i]))
		waits[kind] = append(waits[kind], copies[i]...)
	}
	var out []string
	for _, kind := range slices.Sorted(maps.Keys(byKind)) {
		n, w := byKind[kind], waits[kind]
		slices.Sort(n)
		slices.Sort(w)
		line := fmt.Sprintf("%d %s: copies a fault %v (most %d, median %d)", len(n), kind, n, n[len(n)-1], n[len(n)/2])
		if len(w) > 0 {
			line += fmt.Sprintf(", arriving %v to %v after it (median %v)", w[0].Round(10*time.Millisecond),
				w[len(w)-1].Round(10*time.Millisecond), w[len(w)/2].Round(10*time.Millisecond))
		}
		out = append(out, line)
	}
	return strings.Join(out, "; ")
}

// sinceFault says how long after the start of the last fault before at
// it is, or -1 if none was before.
func (f *fleet) sinceFault(at time.Time) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	since := time.Duration(-1)
	for _, x := range f.faults {
		if x.from.Before(at) {
			since = at.Sub(x.from)
		}
	}
	return since
}

// restart starts process i again, on the same database.
func (f *fleet) restart(i int) {
	s := f.start()
	f.mu.Lock()
	f.procs[i] = s
	f.mu.Unlock()
}

// stop sends every process SIGTERM and requires each to exit 0.
func (f *fleet) stop(t *testing.T) {
	t.Helper()
	for _, s := range f.procs {
		if s != nil {
			s.stop(t)
		}
	}
}

// faultAt is when fault i struck.
func (f *fleet) faultAt(i int) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.faults[i].from
}
