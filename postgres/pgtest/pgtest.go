// Package pgtest gives each test a PostgreSQL database of its own, cheaply.
//
// The migrations run once per server, into a template database named by
// their hash. Tests do not clone it each (a clone writes the whole
// template through the WAL, and costs a fraction of a second): they take
// a database from a pool of clones that outlives the test binaries, and
// the pool empties each one as it hands it out.
//
// A pool database is disburse_pool_<hash>_<n>. A test claims one by an
// advisory lock, held until the test ends by one session per test binary
// on the admin database (the one EnvURL names), so that binaries running
// at once, or killed, never share one: a lock dies with its session. On
// claiming it the pool
//
//   - ends every other session on it (connections a test leaked, or the
//     server side of those a test cut), and so their locks, temporary
//     tables and settings;
//   - compares its catalog with the template's (fingerprint.go): tables,
//     columns, indexes, constraints, functions, settings of the database,
//     large objects and goose's versions. A test that changed any of
//     these (migrated down, dropped the schema, set a parameter on the
//     database) leaves a database the pool drops and clones again;
//   - empties every table but goose's (TRUNCATE ... RESTART IDENTITY
//     CASCADE, of the tables that have rows) and restarts every sequence
//     that has been used, so the database is what a new clone would be.
//
// Tests using it may run in parallel, in several test binaries at once,
// as long as all of them name the same admin database: the claims are
// advisory locks in it. The statistics the planner gathered on a table
// (ANALYZE) outlive the rows; they change plans, never answers.
//
// The server is named by DISBURSE_TEST_POSTGRES_URL, a postgres:// URL of
// a role that may create databases; the database in it is only connected
// to, to create the others and hold the claims. Without it the tests are
// skipped.
package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/sqlstore"
)

// EnvURL is the variable that names the test server.
const EnvURL = "DISBURSE_TEST_POSTGRES_URL"

// Open returns a store on a migrated, empty database of the test's own,
// closed when the test ends. It has the signature storetest.Run takes.
func Open(t *testing.T) disburse.Store {
	t.Helper()
	return OpenSQL(t)
}

// OpenSQL is Open with the store's concrete type, for a test that hands
// a feature its own port from it (backoffice.Store, Webhooks, Idempotency).
func OpenSQL(t *testing.T) *sqlstore.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), URL(t))
	if err != nil {
		t.Fatalf("pgtest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// URL returns the URL of a migrated, empty database that no other test
// uses until this one ends (after the test's own cleanups, registered
// later, have closed their connections). It skips the test when EnvURL is
// not set.
func URL(tb testing.TB) string {
	tb.Helper()
	p := thePool(tb)
	ctx := context.Background()
	slot, err := p.claim(ctx)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		if err := p.release(ctx, slot); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	u, err := p.prepare(ctx, slot)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// Empty makes the database at url, which URL returned to this test, as
// URL hands it out: migrated and empty. Every connection to it must be
// closed first; one still open is ended. It is for a test that runs many
// short cases one after the other, each on an empty database.
func Empty(tb testing.TB, url string) {
	tb.Helper()
	if err := thePool(tb).empty(context.Background(), url); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
}

// Conn returns a pgx connection to a database of the test's own (URL),
// closed when the test ends, for a test that speaks to PostgreSQL itself.
func Conn(tb testing.TB) *pgx.Conn {
	tb.Helper()
	conn, err := pgx.Connect(tb.Context(), URL(tb))
	if err != nil {
		tb.Fatalf("pgtest: connect: %v", err)
	}
	tb.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// thePool returns the test binary's pool, skipping tb when EnvURL is not
// set.
func thePool(tb testing.TB) *pool {
	tb.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		tb.Skip("set " + EnvURL + "=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run the PostgreSQL tests")
	}
	p, err := sharedPool(context.Background(), admin)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return p
}
