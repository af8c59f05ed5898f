// Package testenv says which of the long test suites a run includes. The
// README's `go test ./...` runs every test but those whose length is their
// point (kill -9 and fault rounds, the million-payment and browser tests,
// full-size requests and files, long random runs); `.ci/run` sets
// DISBURSE_TEST_LONG=1 and runs them all.
package testenv

import (
	"os"
	"testing"
)

// LongVar is the environment variable that turns the long suites on.
const LongVar = "DISBURSE_TEST_LONG"

// Long reports whether the run includes the long suites.
func Long() bool { return os.Getenv(LongVar) != "" }

// SkipUnlessLong skips t, saying how to run it, unless the run includes
// the long suites.
func SkipUnlessLong(t testing.TB) {
	t.Helper()
	if !Long() {
		t.Skip("long suite: set " + LongVar + "=1 to run it (as .ci/run does)")
	}
}

// Pick returns long in a run that includes the long suites, and short
// otherwise: the size of a test that proves the same at either, and
// proves more at the long one.
func Pick[T any](short, long T) T {
	if Long() {
		return long
	}
	return short
}
