package portal

import (
	"fmt"
	"testing"
)

// signInAttempt is what signIn does with the limiter for a wrong password:
// ask, and count the failure only if the sign-in was let through.
func signInAttempt(l *signInLimiter, email, client string) bool {
	if !l.allow(email, client) {
		return false
	}
	l.fail(email, client)
	return true
}

// TestLockoutSurvivesFlood: once five wrong passwords lock an email, no
// flood of sign-ins with other emails lifts the lockout, from one address
// or from many, and the limiter's memory stays bounded.
func TestLockoutSurvivesFlood(t *testing.T) {
	const victim = "victim@example.org"
	for _, tc := range []struct {
		name       string
		addresses  int // the flood comes from this many addresses
		maxTracked int // buckets the limiter may hold after it
	}{
		{"one address", 1, 100},
		{"many addresses", 5100, 2*maxTracked + 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := newSignInLimiter(DefaultLimits)
			for range DefaultLimits.EmailBurst {
				signInAttempt(l, victim, "203.0.113.1")
			}
			if l.allow(victim, "203.0.113.2") {
				t.Fatal("five wrong passwords did not lock the email")
			}
			// Past the limiter's bound of buckets: 102,000 sign-ins with
			// random emails, each address until it is refused.
			for i := range 102_000 {
				signInAttempt(l, fmt.Sprintf("flood-%d@example.org", i), fmt.Sprintf("198.51.%d.%d", i%tc.addresses/256, i%tc.addresses%256))
			}
			guesses := 0
			for i := range DefaultLimits.EmailBurst {
				if signInAttempt(l, victim, fmt.Sprintf("192.0.2.%d", i)) {
					guesses++
				}
			}
			if guesses != 0 {
				t.Errorf("after the flood the locked email took %d more guesses, want 0", guesses)
			}
			if n := l.tracked(); n > tc.maxTracked {
				t.Errorf("%d buckets after the flood, want at most %d", n, tc.maxTracked)
			}
			t.Logf("%d buckets after the flood", l.tracked())
		})
	}
}
