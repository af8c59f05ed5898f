package main

import (
	"flag"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/sqlstore"
)

// limitFlags registers the Idempotency-Key lease, the request budgets and
// the bulk gate (docs/idempotency.md, docs/operations.md "Rate limits" and
// "Bulk work").
func (c *config) limitFlags(fs *flag.FlagSet) {
	fs.IntVar(&c.BulkConcurrency, "bulk-concurrency", 0,
		"adds and submits (POST /batches/{id}/payments, /submit, /approvals/{id}/approve) this process serves at once; more wait their turn, organisations in turn; 0: 2 on SQLite, one per two processors on PostgreSQL (DISBURSE_BULK_CONCURRENCY)")
	fs.DurationVar(&c.IdempotencyLease, "idempotency-lease", idempotency.DefaultLease,
		"the longest a running request may hold its Idempotency-Key; a dead process's claims free within 15s (DISBURSE_IDEMPOTENCY_LEASE)")
	c.RateLimits = httpapi.DefaultRateLimits
	fs.Var(policyValue{&c.RateLimits.Organisation}, "rate-limit-organisation",
		"requests per window of each organisation, all its access tokens together, `QUOTA/WINDOW` or off (DISBURSE_RATE_LIMIT_ORGANISATION)")
	fs.Var(policyValue{&c.RateLimits.Operator}, "rate-limit-operator",
		"requests per window of the operator token, `QUOTA/WINDOW` or off (DISBURSE_RATE_LIMIT_OPERATOR)")
	fs.Var(policyValue{&c.RateLimits.Address}, "rate-limit-address",
		"requests per window of each client address to getToken, calls without a token or whose token fails, and portal sign-ins, `QUOTA/WINDOW` or off (DISBURSE_RATE_LIMIT_ADDRESS)")
	fs.Var(policyValue{&c.RateLimits.MemberExists}, "rate-limit-member-exists",
		"GET /members/{msisdn}/exists per window of each organisation, `QUOTA/WINDOW` or off (DISBURSE_RATE_LIMIT_MEMBER_EXISTS)")
}

// bulkConcurrency is c's bulk gate's places: its own, or the default of
// store's engine (httpapi.DefaultBulkConcurrency).
func bulkConcurrency(c *config, store *sqlstore.Store) int {
	if c.BulkConcurrency > 0 {
		return c.BulkConcurrency
	}
	return httpapi.DefaultBulkConcurrency(store.HasOneWriter())
}

// policyValue is a flag.Value over a rate limit; the policy keeps its name.
type policyValue struct{ p *ratelimit.Policy }

func (v policyValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v policyValue) Set(s string) error {
	p, err := ratelimit.ParsePolicy(v.p.Name, s)
	if err != nil {
		return err
	}
	*v.p = p
	return nil
}
