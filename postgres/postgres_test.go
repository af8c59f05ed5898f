package postgres_test

import (
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/storetest"
	"github.com/disburse/disburse/usecasetest"
)

// Every test here runs on a database of its own (pgtest), skipped unless
// DISBURSE_TEST_POSTGRES_URL names a server. The suites run side by side:
// a slow test of one leaves the server to the others.

func TestStore(t *testing.T) {
	t.Parallel()
	storetest.Run(t, pgtest.Open)
}

// TestStoreInChunks runs the suite again with bulk statements of a few
// rows, so that every bulk path is split into chunks, and with every
// insert copied, so that COPY runs the suite too.
func TestStoreInChunks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openInChunks)
}

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
func TestConcurrency(t *testing.T) {
	t.Parallel()
	usecasetest.RunConcurrency(t, pgtest.Open)
}

func TestDelivery(t *testing.T) {
	t.Parallel()
	usecasetest.RunDelivery(t, pgtest.Open)
}

func TestWebhooks(t *testing.T) { storetest.RunWebhooks(t, pgtest.Open) }

// TestProperties makes fewer random runs than SQLite's: each clones a
// database and talks to a server.
func TestProperties(t *testing.T) {
	t.Parallel()
	usecasetest.SetPropertyChecks(t, 8, 25)
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
