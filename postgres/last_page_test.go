package postgres_test

import (
	"os"
	"testing"

	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/usecasetest"
)

// TestMillionLastPage: the last page of a 1,000,000-payment batch by
// cursor and by skip (usecasetest.LastPageTimes; docs/benchmarks.md).
func TestMillionLastPage(t *testing.T) {
	if os.Getenv("DISBURSE_TEST_MILLION") == "" {
		t.Skip("a million payments: set DISBURSE_TEST_MILLION=1 to run it (as .ci/run does)")
	}
	usecasetest.LastPageTimes(t, pgtest.Open(t))
}
