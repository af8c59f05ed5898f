package main

import (
	"math/rand/v2"
	"regexp"
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
	faults []time.Time     // when each kill or termination struck
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
	f.faults = append(f.faults, time.Now())
	f.mu.Unlock()
	if err := s.cmd.Process.Kill(); err != nil {
		f.t.Fatal(err)
	}
	<-s.done
}

// struck notes a fault that was not a kill.
func (f *fleet) struck() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.faults = append(f.faults, time.Now())
}

// faultBetween says whether a fault struck between from and to.
func (f *fleet) faultBetween(from, to time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, at := range f.faults {
		if at.After(from) && at.Before(to) {
			return true
		}
	}
	return false
}

// warnings counts the WARN and ERROR lines of every process's log by
// their message.
func (f *fleet) warnings() map[string]int {
	f.mu.Lock()
	defer f.mu.Unlock()
	counts := map[string]int{}
	for _, s := range f.all {
		for line := range strings.Lines(s.log.String()) {
			if !strings.Contains(line, "level=WARN") && !strings.Contains(line, "level=ERROR") {
				continue
			}
			if m := logMessage.FindStringSubmatch(line); m != nil {
				counts[m[1]]++
			}
		}
	}
	return counts
}

// logMessage is the message of a text log line.
var logMessage = regexp.MustCompile(`level=\w+ msg=("[^"]*"|\S+)`)

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
