package notifications

import (
	"fmt"
	"time"

	"github.com/disburse/disburse/internal/fanout"
)

// Policy says how delivery retries and how long it may hold work
// (docs/api.md section 8).
type Policy struct {
	MaxAttempts int           // after this many failures a notification is FAILED
	BaseBackoff time.Duration // wait after the first failure; doubles each time
	MaxBackoff  time.Duration
	// Lease is how long a claim holds unless its process renews it (every
	// Lease/3 while it lives): how soon another process takes over the
	// rows of one that died.
	Lease       time.Duration
	SendTimeout time.Duration // the most one send may take: the provider's context ends then
	BatchSize   int           // rows one claim leases
	// Concurrency is how many sends one process has in flight at once;
	// 0 or 1 sends one at a time.
	Concurrency int
	// Rate is the most sends one process starts a second; 0 is no limit.
	Rate int
}

// DefaultPolicy: 8 attempts over about 20 minutes, sent
// fanout.DefaultConcurrency at a time, under a lease of fanout.DefaultLease
// renewed while the process lives.
var DefaultPolicy = Policy{
	MaxAttempts: 8, BaseBackoff: 5 * time.Second, MaxBackoff: 10 * time.Minute,
	Lease: fanout.DefaultLease, SendTimeout: 10 * time.Second, BatchSize: 500, Concurrency: fanout.DefaultConcurrency,
}

// check rejects a policy under which nothing could ever be sent.
func (p Policy) check() error {
	switch {
	case p.MaxAttempts < 1 || p.BatchSize < 1 || p.Concurrency < 0 || p.Rate < 0:
		return fmt.Errorf("delivery policy: MaxAttempts %d and BatchSize %d must be at least 1, Concurrency %d and Rate %d not negative",
			p.MaxAttempts, p.BatchSize, p.Concurrency, p.Rate)
	case p.SendTimeout <= 0 || p.Lease <= 0:
		return fmt.Errorf("delivery policy: SendTimeout and Lease must be positive")
	}
	return nil
}

// backoff is the wait after the given number of failed attempts.
func (p Policy) backoff(attempts int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < attempts && d < p.MaxBackoff; i++ {
		d *= 2
	}
	return min(d, p.MaxBackoff)
}
