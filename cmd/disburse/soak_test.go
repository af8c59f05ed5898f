package main

import (
	"database/sql"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestChaosSoak drives `disburse serve` with sustained concurrent load
// (batches created, filled, submitted and cancelled by several
// organisations, members registered while submits run, the reversal
// sweep, webhooks, an Idempotency-Key on every write and retries after
// every failure) while the chaos of soakPlan kills it with SIGKILL at
// random moments and, on PostgreSQL, terminates its database sessions.
// After the load stops and the worker settles it checks, through the
// API and the outbox, that no money was lost or made, no keyed request
// ran twice and every webhook event was delivered (docs/operations.md,
// "Chaos soak"). SQLite with one process, then PostgreSQL with two
// replicas on one database. Only with DISBURSE_TEST_SOAK set: it runs
// for minutes.
func TestChaosSoak(t *testing.T) {
	length := testenv.Soak(t, 3*time.Minute)
	bin := buildBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		runSoak(t, soakPlan{bin: bin, url: "sqlite:" + filepath.Join(t.TempDir(), "soak.db"), length: length,
			replicas: 1, workers: 3, chaosEvery: [2]time.Duration{15 * time.Second, 35 * time.Second}})
	})
	t.Run("postgres", func(t *testing.T) {
		runSoak(t, soakPlan{bin: bin, url: pgtest.URL(t), length: length,
			replicas: 2, workers: 4, chaosEvery: [2]time.Duration{4 * time.Second, 14 * time.Second}, terminate: true})
	})
}

// soakPlan is one store's soak.
type soakPlan struct {
	bin, url string
	length   time.Duration // of the load; the settling and the checks come after
	replicas int
	workers  int // each runs batches one after the other
	// chaosEvery bounds the random wait between two faults.
	chaosEvery [2]time.Duration
	// terminate: some faults terminate the service's PostgreSQL sessions
	// instead of killing a replica.
	terminate bool
}

// soakSettle bounds the settling and the checks after the load.
const soakSettle = 4 * time.Minute

func runSoak(t *testing.T, plan soakPlan) {
	if deadline, ok := t.Deadline(); ok && time.Until(deadline) < plan.length+soakSettle {
		t.Fatalf("a soak of %v needs %v more than -timeout leaves: run it with -timeout 30m", plan.length, plan.length+soakSettle-time.Until(deadline))
	}
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d, load for %v", seed, plan.length)
	db, err := sql.Open(soakDriver(plan.url))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	hooks := newHookReceiver(t)
	r := &soakRun{t: t, seed: seed, admin: "chaos-soak-test-admin-token", db: db, hooks: hooks, stalls: watchStalls(t, db, plan.terminate),
		repeats: map[int][]time.Duration{}}
	r.fleet = newFleet(t, plan, r.admin)
	r.setUp()

	stop := time.Now().Add(plan.length)
	var wg sync.WaitGroup
	for w := range plan.workers {
		wg.Go(func() { r.work(w, stop) })
	}
	wg.Go(func() { r.registrations(stop) })
	faults := r.chaos(plan, stop) // in the test's goroutine: a restart may t.Fatal
	wg.Wait()
	loadEnded := time.Now()

	settled := r.settle(loadEnded.Add(soakSettle / 2))
	r.check()
	if plan.terminate {
		r.deadlocks = r.count(`SELECT deadlocks FROM pg_stat_database WHERE datname = current_database()`)
	}
	t.Logf("load %v, settled %v after it; %s", plan.length, settled.Sub(loadEnded).Round(100*time.Millisecond), faults)
	t.Logf("%s", r.report())
	r.fleet.stop(t)
}

// soakDriver is the database/sql driver and source of a database URL,
// for the test's own reads and the chaos's terminations.
func soakDriver(url string) (driver, source string) {
	if path, sqliteURL, _ := databaseURL(url); sqliteURL {
		return "sqlite", path
	}
	return "pgx", url
}

// soakFaults counts what the chaos did.
type soakFaults struct {
	kills, terminateRounds, terminated int
}

func (f soakFaults) String() string {
	return fmt.Sprintf("%d kill -9s, %d rounds of pg_terminate_backend ending %d sessions", f.kills, f.terminateRounds, f.terminated)
}

// report is the soak's figures, for the log and docs/operations.md.
func (r *soakRun) report() string {
	submitted, submittedPayments, cancelled := 0, 0, 0
	for _, b := range r.batches {
		if b.submitted {
			submitted++
			submittedPayments += b.added
		}
		if b.cancelled {
			cancelled++
		}
	}
	q := &r.requests
	s := fmt.Sprintf("%d payments in %d batches (%d submitted, with %d payments; %d cancelled), %s paid to wallets; "+
		"%d registrations during the load; %d keyed requests sent, %d of them retries (after %d cut by a kill, "+
		"%d 503, %d 500, %d 409 in progress), %d answers replayed, %d duplicates; "+
		"%d webhook deliveries, all received, %d copies beyond the first (%d with no fault since the copy before)",
		r.payments, len(r.batches), submitted, submittedPayments, cancelled, r.paid,
		len(r.members)-soakMembers, q.sent.Load(), q.retried.Load(), q.cut.Load(),
		q.unavailable.Load(), q.internal.Load(), q.busy.Load(), q.replayed.Load(), len(r.duplicates),
		r.deliveries, r.redelivered, r.unexplained)
	for _, a := range r.internals {
		s += fmt.Sprintf("\n  500: %.300s", a)
	}
	s += "\n  webhook copies beyond the first after each fault: " + r.fleet.repeatsByFault(r.repeats)
	s += fmt.Sprintf("\n  over the run (spans of a second or more; waits for a lock of half a second or more): %s", r.stalls.within(time.Now(), 0))
	if r.deadlocks > 0 {
		s += fmt.Sprintf("\n  %d deadlocks detected by PostgreSQL", r.deadlocks)
	}
	counts, firstLines := r.fleet.warnings()
	for _, msg := range slices.Sorted(maps.Keys(counts)) {
		s += fmt.Sprintf("\n  logged %d times: %s", counts[msg], msg)
	}
	for _, line := range firstLines {
		s += fmt.Sprintf("\n  %.500s", line)
	}
	if r.unexplained > 0 {
		s += "\n  faults:" + r.fleet.timeline()
	}
	return s
}
