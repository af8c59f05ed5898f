package notifications

import (
	"testing"
	"time"
)

// The rules that need no store; usecasetest.RunDelivery runs the delivery
// on both stores.

func TestPolicyBackoff(t *testing.T) {
	p := Policy{BaseBackoff: 5 * time.Second, MaxBackoff: time.Minute}
	for attempts, want := range map[int]time.Duration{1: 5 * time.Second, 2: 10 * time.Second, 4: 40 * time.Second, 5: time.Minute, 30: time.Minute} {
		if got := p.backoff(attempts); got != want {
			t.Errorf("backoff(%d) = %v, want %v", attempts, got, want)
		}
	}
}

func TestPolicyCheck(t *testing.T) {
	if err := DefaultPolicy.check(); err != nil {
		t.Errorf("DefaultPolicy: %v", err)
	}
	for name, spoil := range map[string]func(*Policy){
		"no attempts":          func(p *Policy) { p.MaxAttempts = 0 },
		"claims of nothing":    func(p *Policy) { p.BatchSize = 0 },
		"negative concurrency": func(p *Policy) { p.Concurrency = -1 },
		"negative rate":        func(p *Policy) { p.Rate = -1 },
		"no send timeout":      func(p *Policy) { p.SendTimeout = 0 },
		"no lease":             func(p *Policy) { p.Lease = 0 },
	} {
		p := DefaultPolicy
		spoil(&p)
		if p.check() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
