package main

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/worker"
)

// TestStoreGauges: the collector reads a fresh store of each engine and
// shows every status of both outboxes, the ages and the counts, at 0.
func TestStoreGauges(t *testing.T) {
	open := map[string]func(t *testing.T) (*sqlstore.Store, error){
		"sqlite": func(t *testing.T) (*sqlstore.Store, error) {
			return sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "g.db"))
		},
		"postgres": func(t *testing.T) (*sqlstore.Store, error) {
			return postgres.Open(t.Context(), pgtest.URL(t))
		},
	}
	const want = `
# HELP disburse_api_keys_active API keys not revoked.
# TYPE disburse_api_keys_active gauge
disburse_api_keys_active 0
# HELP disburse_notifications Payee notifications in the outbox, by status.
# TYPE disburse_notifications gauge
disburse_notifications{status="FAILED"} 0
disburse_notifications{status="PENDING"} 0
disburse_notifications{status="SENT"} 0
# HELP disburse_notifications_oldest_pending_age_seconds Age of the oldest PENDING payee notification; 0 when none is pending.
# TYPE disburse_notifications_oldest_pending_age_seconds gauge
disburse_notifications_oldest_pending_age_seconds 0
# HELP disburse_tokens_live Access tokens that have not expired.
# TYPE disburse_tokens_live gauge
disburse_tokens_live 0
# HELP disburse_webhook_deliveries Webhook deliveries, by status.
# TYPE disburse_webhook_deliveries gauge
disburse_webhook_deliveries{status="DELIVERED"} 0
disburse_webhook_deliveries{status="FAILED"} 0
disburse_webhook_deliveries{status="PENDING"} 0
# HELP disburse_webhook_deliveries_oldest_pending_age_seconds Age of the oldest PENDING webhook delivery; 0 when none is pending.
# TYPE disburse_webhook_deliveries_oldest_pending_age_seconds gauge
disburse_webhook_deliveries_oldest_pending_age_seconds 0
`
	for _, name := range []string{"sqlite", "postgres"} {
		t.Run(name, func(t *testing.T) {
			s, err := open[name](t)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			if err := testutil.CollectAndCompare(newStoreGauges(s), strings.NewReader(want)); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestCountSweeps: each run of the reversal loop counts once, its payments
// add to the legs reversed, and a failed run counts as a failure; other
// loops are left as they were.
func TestCountSweeps(t *testing.T) {
	results := []struct {
		n   int
		err error
	}{{3, nil}, {2, errors.New("database gone")}, {0, nil}}
	i, others := 0, 0
	reversal := worker.Loop{Name: worker.ReversalName, RunOnce: func(context.Context) (int, error) {
		r := results[i]
		i++
		return r.n, r.err
	}}
	other := worker.Loop{Name: "token-purge", RunOnce: func(context.Context) (int, error) { others++; return 7, nil }}
	reg := prometheus.NewRegistry()
	loops := countSweeps(reg, []worker.Loop{other, reversal})
	for range results {
		_, _ = loops[1].RunOnce(t.Context())
	}
	_, _ = loops[0].RunOnce(t.Context())
	const want = `
# HELP disburse_reversal_legs_reversed_total Payments whose legs the reversal sweep on this replica reversed.
# TYPE disburse_reversal_legs_reversed_total counter
disburse_reversal_legs_reversed_total 5
# HELP disburse_reversal_sweep_failures_total Runs of the reversal sweep on this replica that ended in an error.
# TYPE disburse_reversal_sweep_failures_total counter
disburse_reversal_sweep_failures_total 1
# HELP disburse_reversal_sweep_runs_total Runs of the reversal sweep on this replica.
# TYPE disburse_reversal_sweep_runs_total counter
disburse_reversal_sweep_runs_total 3
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want)); err != nil {
		t.Error(err)
	}
	if others != 1 {
		t.Errorf("the other loop ran %d times, want 1", others)
	}
}
