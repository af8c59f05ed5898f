package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// chaos strikes until stop, after a random wait within plan.chaosEvery
// each time: it kills a process with SIGKILL and restarts it 0 to 2 s
// later, or, on PostgreSQL two times in five, terminates every session
// the service has open (pg_terminate_backend, from the test's own
// connection). It returns what it did.
func (r *soakRun) chaos(plan soakPlan, stop time.Time) soakFaults {
	rng := rand.New(rand.NewPCG(r.seed, 1<<33))
	var f soakFaults
	for {
		lo, hi := plan.chaosEvery[0], plan.chaosEvery[1]
		wait := lo + time.Duration(rng.Int64N(int64(hi-lo)))
		if time.Until(stop) < wait {
			time.Sleep(time.Until(stop))
			return f
		}
		time.Sleep(wait)
		if plan.terminate && rng.IntN(5) < 2 {
			struck := time.Now()
			n := r.terminate()
			f.terminateRounds++
			f.terminated += n
			r.fleet.struck(struck, fmt.Sprintf("pg_terminate_backend of %d sessions", n))
			continue
		}
		i := rng.IntN(plan.replicas)
		r.fleet.kill9(i)
		f.kills++
		time.Sleep(time.Duration(rng.IntN(2000)) * time.Millisecond)
		r.fleet.restart(i)
	}
}

// terminate ends every PostgreSQL session of the service (they name
// themselves application_name=disburse) and says how many.
func (r *soakRun) terminate() int {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var n int
	// Chosen first, in a CTE of its own: no other database's session may
	// meet the terminating filter.
	err := r.db.QueryRowContext(ctx, `WITH service AS MATERIALIZED (SELECT pid FROM pg_stat_activity
			WHERE datname = current_database() AND application_name = 'disburse' AND pid <> pg_backend_pid())
		SELECT count(*) FROM service WHERE pg_terminate_backend(pid)`).Scan(&n)
	if err != nil {
		r.t.Fatalf("pg_terminate_backend: %v", err)
	}
	return n
}
