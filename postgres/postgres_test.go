package postgres_test

import (
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
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

func TestIdempotencyKeys(t *testing.T) {
	storetest.RunIdempotency(t, func(t *testing.T) (disburse.Store, idempotency.Store) {
		s := pgtest.OpenSQL(t)
		return s, s.Idempotency()
	})
}

// TestStoreInChunks runs the suite again with bulk statements of a few
// rows, so that every bulk path is split into chunks, and with every
// insert copied, so that COPY runs the suite too.
func TestStoreInChunks(t *testing.T) {
	t.Parallel()
	storetest.Run(t, openInChunks)
}

// TestPortalStore and TestPortalStoreInChunks run the suite of the
// portal's port, backoffice.Tx, as TestStore and TestStoreInChunks do.
func TestPortalStore(t *testing.T) {
	storetest.RunPortal(t, func(t *testing.T) storetest.PortalStore { return pgtest.OpenSQL(t) })
}

func TestPortalStoreInChunks(t *testing.T) {
	storetest.RunPortal(t, func(t *testing.T) storetest.PortalStore { return openInChunksSQL(t) })
}

// TestNotificationStore and TestNotificationStoreInChunks run the suite
// of the notification delivery's port, notifications.Tx, as TestStore and
// TestStoreInChunks do.
func TestNotificationStore(t *testing.T) {
	storetest.RunNotifications(t, func(t *testing.T) storetest.NotificationStore { return pgtest.OpenSQL(t) })
}

func TestNotificationStoreInChunks(t *testing.T) {
	storetest.RunNotifications(t, func(t *testing.T) storetest.NotificationStore { return openInChunksSQL(t) })
}

// TestOperatorStore runs the suite of the operators' port, operators.Tx.
func TestOperatorStore(t *testing.T) {
	storetest.RunOperators(t, func(t *testing.T) storetest.OperatorStore { return pgtest.OpenSQL(t) })
}

// TestAuthStore runs the suite of the keys' and tokens' port, auth.Tx.
func TestAuthStore(t *testing.T) {
	storetest.RunAuth(t, func(t *testing.T) storetest.AuthStore { return pgtest.OpenSQL(t) })
}

func openInChunks(t *testing.T) disburse.Store { return openInChunksSQL(t) }

// openInChunksSQL is openInChunks with the store's concrete type.
func openInChunksSQL(t *testing.T) *sqlstore.Store {
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

// TestSandbox: a sandbox organisation's use cases, beside a live one
// (docs/sandbox.md).
func TestSandbox(t *testing.T) {
	t.Parallel()
	usecasetest.RunSandbox(t, pgtest.Open)
}

func TestApprovals(t *testing.T) {
	t.Parallel()
	usecasetest.RunApprovals(t, pgtest.Open)
}

func TestDelivery(t *testing.T) {
	t.Parallel()
	usecasetest.RunDelivery(t, pgtest.OpenSQL)
}

func TestWebhooks(t *testing.T) { usecasetest.RunWebhooks(t, pgtest.OpenSQL) }

// TestProperties makes fewer random runs than SQLite's: each talks to a
// server.
func TestProperties(t *testing.T) {
	t.Parallel()
	usecasetest.SetPropertyChecks(t, 8, 25)
	// rapid calls open once per run, each time with this test's t, so the
	// cleanups of every run's store would wait for the end of the test: a
	// hundred open pools and claimed databases. The runs share one
	// database, emptied for each, and each closes the store of the one
	// before.
	u := pgtest.URL(t)
	var last disburse.Store
	t.Cleanup(func() {
		if last != nil {
			last.Close()
		}
	})
	usecasetest.RunProperties(t, func(t *testing.T) disburse.Store {
		if last != nil {
			last.Close()
			pgtest.Empty(t, u)
		}
		s, err := postgres.Open(t.Context(), u)
		if err != nil {
			t.Fatal(err)
		}
		last = s
		return s
	})
}

// TestMeter checks what the use cases count for the operator's metrics.
func TestMeter(t *testing.T) {
	t.Parallel()
	usecasetest.RunMeter(t, pgtest.Open)
}
