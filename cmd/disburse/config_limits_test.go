package main

import (
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/ratelimit"
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

// TestSettingsBulkConcurrency: the bulk gate defaults to the API's
// default, comes from its flag or its variable, and must admit one at
// least.
func TestSettingsBulkConcurrency(t *testing.T) {
	c, err := serveSettings(t, nil)
	if err != nil || c.BulkConcurrency != httpapi.DefaultBulkConcurrency {
		t.Fatalf("default: %d, %v; want %d", c.BulkConcurrency, err, httpapi.DefaultBulkConcurrency)
	}
	if c, err = serveSettings(t, map[string]string{"DISBURSE_BULK_CONCURRENCY": "3"}); err != nil || c.BulkConcurrency != 3 {
		t.Fatalf("from the variable: %v", err)
	}
	if c, err = serveSettings(t, map[string]string{"DISBURSE_BULK_CONCURRENCY": "3"}, "--bulk-concurrency", "1"); err != nil || c.BulkConcurrency != 1 {
		t.Fatalf("the flag over the variable: %v", err)
	}
	if _, err = serveSettings(t, nil, "--bulk-concurrency", "0"); err == nil || !strings.Contains(err.Error(), "bulk-concurrency") {
		t.Errorf("a gate of none: %v", err)
	}
}
