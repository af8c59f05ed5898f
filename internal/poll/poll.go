// Package poll lets a test wait for what another goroutine or process
// brings about and no channel announces (a request queued at the bulk
// gate): it polls, with a deadline, never sleeping a fixed time to show
// that something did not happen.
package poll

import (
	"testing"
	"time"
)

// Until polls cond, at most 1,000 times over 10 s, and fails t naming
// what did not happen.
func Until(t testing.TB, cond func() bool, what string) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}
