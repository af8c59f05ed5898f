package webhooks

import (
	"net/netip"
	"strings"
	"testing"
	"time"
)

// The rules that need no store; usecasetest.RunWebhooks runs the use cases
// on both stores.

func TestPublicAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"8.8.4.4":          true,
		"2606:4700::1111":  true,
		"127.0.0.1":        false,
		"10.1.2.3":         false,
		"192.168.1.1":      false,
		"169.254.169.254":  false,
		"100.64.0.1":       false, // carrier-grade NAT
		"::1":              false,
		"::ffff:127.0.0.1": false, // mapped: judged as the IPv4 it is
		"0.0.0.0":          false,
		"224.0.0.1":        false,
		"fe80::1":          false,
	} {
		if got := PublicAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("PublicAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestSignWithBothSecretsDuringTheOverlap(t *testing.T) {
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	e := Endpoint{Secret: NewSecret(), PreviousSecret: NewSecret(), PreviousSecretUntil: at.Add(time.Second)}
	body := []byte(`{"type":"batch.closed"}`)
	sigs := strings.Split(Sign(e, "d1", at, body), " ")
	if len(sigs) != 2 || !strings.HasPrefix(sigs[0], "v1,") || sigs[0] == sigs[1] {
		t.Fatalf("during the overlap: %q, want two v1 signatures", sigs)
	}
	after := Sign(e, "d1", at.Add(time.Second), body)
	if strings.Contains(after, " ") {
		t.Errorf("after the overlap: %q, want the new secret's alone", after)
	}
	if Sign(e, "d2", at, body) == Sign(e, "d1", at, body) {
		t.Error("the delivery id is not signed")
	}
}

func TestPolicyBackoff(t *testing.T) {
	p := Policy{BaseBackoff: time.Second, MaxBackoff: time.Minute}
	for attempts, base := range map[int]time.Duration{1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 20: time.Minute} {
		got := p.backoff(attempts)
		if lo, hi := base*8/10, base*12/10; got < lo || got > hi {
			t.Errorf("backoff(%d) = %v, want %v ± 20%%", attempts, got, base)
		}
	}
	if err := DefaultPolicy.check(); err != nil {
		t.Errorf("DefaultPolicy: %v", err)
	}
	short := DefaultPolicy
	short.Lease = 0
	if short.check() == nil {
		t.Error("a lease of 0 was accepted")
	}
}
