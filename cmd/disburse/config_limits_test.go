package main

import (
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestSettingsLimits: the budgets and the lease default to what the docs
// say, and each comes from its flag or its variable, the flag winning.
func TestSettingsLimits(t *testing.T) {
	c, err := serveSettings(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.RateLimits.Organisation != httpapi.DefaultRateLimits.Organisation || c.RateLimits.Operator != httpapi.DefaultRateLimits.Operator ||
		c.RateLimits.Address != httpapi.DefaultRateLimits.Address || c.RateLimits.MemberExists != httpapi.DefaultRateLimits.MemberExists ||
		c.IdempotencyLease != idempotency.DefaultLease {
		t.Errorf("defaults: %+v, lease %s", c.RateLimits, c.IdempotencyLease)
	}
	c, err = serveSettings(t, map[string]string{
		"DISBURSE_RATE_LIMIT_ORGANISATION":  "100/1s",
		"DISBURSE_RATE_LIMIT_OPERATOR":      "off",
		"DISBURSE_RATE_LIMIT_ADDRESS":       "5/1m",
		"DISBURSE_RATE_LIMIT_MEMBER_EXISTS": "9/1h",
		"DISBURSE_IDEMPOTENCY_LEASE":        "30m",
	}, "--rate-limit-address", "7/10s")
	if err != nil {
		t.Fatal(err)
	}
	want := httpapi.RateLimits{
		Organisation: ratelimit.Policy{Name: "organisation", Quota: 100, Window: time.Second},
		Operator:     ratelimit.Policy{Name: "operator"},
		Address:      ratelimit.Policy{Name: "address", Quota: 7, Window: 10 * time.Second},
		MemberExists: ratelimit.Policy{Name: "member-exists", Quota: 9, Window: time.Hour},
	}
	if c.RateLimits.Organisation != want.Organisation || c.RateLimits.Operator != want.Operator ||
		c.RateLimits.Address != want.Address || c.RateLimits.MemberExists != want.MemberExists || c.IdempotencyLease != 30*time.Minute {
		t.Errorf("got %+v, lease %s; want %+v", c.RateLimits, c.IdempotencyLease, want)
	}
	_, err = serveSettings(t, map[string]string{"DISBURSE_RATE_LIMIT_ORGANISATION": "lots"})
	if err == nil || !strings.Contains(err.Error(), "DISBURSE_RATE_LIMIT_ORGANISATION") {
		t.Errorf("a bad budget: %v", err)
	}
}

// TestSettingsBulkConcurrency: the bulk gate comes from its flag or its
// variable, may not be negative, and by default (0) follows the store:
// two places on SQLite's one writer, one per two processors, at least
// one, on PostgreSQL (httpapi.DefaultBulkConcurrency).
func TestSettingsBulkConcurrency(t *testing.T) {
	c, err := serveSettings(t, nil)
	if err != nil || c.BulkConcurrency != 0 {
		t.Fatalf("default: %d, %v; want 0, the store's", c.BulkConcurrency, err)
	}
	sqlite, err := openStore(t.Context(), "sqlite:"+filepath.Join(t.TempDir(), "b.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer sqlite.Close()
	if got := bulkConcurrency(&c, sqlite); got != 2 {
		t.Errorf("SQLite's default: %d places, want 2", got)
	}
	t.Run("postgres", func(t *testing.T) {
		postgres := pgtest.OpenSQL(t) // skips without DISBURSE_TEST_POSTGRES_URL
		if got, want := bulkConcurrency(&c, postgres), max(1, runtime.GOMAXPROCS(0)/2); got != want {
			t.Errorf("PostgreSQL's default on %d processors: %d places, want %d", runtime.GOMAXPROCS(0), got, want)
		}
	})
	if c, err = serveSettings(t, map[string]string{"DISBURSE_BULK_CONCURRENCY": "3"}); err != nil || bulkConcurrency(&c, sqlite) != 3 {
		t.Fatalf("from the variable: %v", err)
	}
	if c, err = serveSettings(t, map[string]string{"DISBURSE_BULK_CONCURRENCY": "3"}, "--bulk-concurrency", "1"); err != nil || bulkConcurrency(&c, sqlite) != 1 {
		t.Fatalf("the flag over the variable: %v", err)
	}
	if _, err = serveSettings(t, nil, "--bulk-concurrency", "-1"); err == nil || !strings.Contains(err.Error(), "bulk-concurrency") {
		t.Errorf("a negative gate: %v", err)
	}
}
