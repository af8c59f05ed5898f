// Package testenv says which of the long test suites a run includes. The
// README's `go test ./...` runs every test but those whose length is their
// point (kill -9 and fault rounds, the million-payment and browser tests,
// full-size requests and files, long random runs); `.ci/run` sets
// DISBURSE_TEST_LONG=1 and runs them all. The chaos soak, minutes long,
// runs only when asked for by name (Soak).
package testenv

import (
	"os"
	"testing"
	"time"
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

// SoakVar is the environment variable that runs the chaos soak
// (cmd/disburse TestChaosSoak): 1 for its default length, or a Go
// duration such as 5m. Not even the long suites run it: it is for a
// person to run, for minutes, and read its figures.
const SoakVar = "DISBURSE_TEST_SOAK"

// Soak returns how long the chaos soak runs: byDefault when SoakVar is 1,
// else the duration it holds. Without SoakVar it skips t, saying how to
// run it.
func Soak(t testing.TB, byDefault time.Duration) time.Duration {
	t.Helper()
	v := os.Getenv(SoakVar)
	switch v {
	case "":
		t.Skip("chaos soak: set " + SoakVar + "=1 (or a duration, such as 5m) to run it; docs/operations.md \"Chaos soak\"")
	case "1":
		return byDefault
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		t.Fatalf("%s=%q: want 1 or a positive Go duration, such as 5m", SoakVar, v)
	}
	return d
}
