package postgres_test

import (
	"flag"
	"os"
	"strconv"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/storetest"
	"github.com/disburse/disburse/usecasetest"
)

// Every test here runs on a database of its own (pgtest), skipped unless
// DISBURSE_TEST_POSTGRES_URL names a server.

func TestStore(t *testing.T) { storetest.Run(t, pgtest.Open) }

// TestStoreInChunks runs the suite again with bulk statements of a few
// rows, so that every bulk path is split into chunks, and with every
// insert copied, so that COPY runs the suite too.
func TestStoreInChunks(t *testing.T) { storetest.Run(t, openInChunks) }

func openInChunks(t *testing.T) disburse.Store {
	s, err := postgres.OpenInChunks(t.Context(), pgtest.URL(t), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConcurrency, TestDelivery and TestProperties run the use cases on
// the store: races, the notification outbox, and random operations checked
// against a model.
func TestConcurrency(t *testing.T) { usecasetest.RunConcurrency(t, pgtest.Open) }

func TestDelivery(t *testing.T) { usecasetest.RunDelivery(t, pgtest.Open) }

func TestWebhooks(t *testing.T) { storetest.RunWebhooks(t, pgtest.Open) }

// propertyChecks is how many random runs TestProperties makes unless
// -rapid.checks or RAPID_CHECKS says otherwise. Each run clones a database
// (0.3 s) and talks to a server; rapid's default of 100, which SQLite
// runs in half a minute, would take a minute and a half here.
const propertyChecks = 25

func TestProperties(t *testing.T) {
	if !flagSet("rapid.checks") && os.Getenv("RAPID_CHECKS") == "" {
		if err := flag.Set("rapid.checks", strconv.Itoa(propertyChecks)); err != nil {
			t.Fatal(err)
		}
	}
	// rapid calls open once per run, each time with this test's t, so the
	// cleanups of every run's store would wait for the end of the test: a
	// hundred open pools. Each run closes the store of the one before.
	var last disburse.Store
	usecasetest.RunProperties(t, func(t *testing.T) disburse.Store {
		if last != nil {
			last.Close()
		}
		last = pgtest.Open(t)
		return last
	})
}

// flagSet reports whether the command line set the flag.
func flagSet(name string) (set bool) {
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
