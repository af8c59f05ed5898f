// Package pgtest gives each test a PostgreSQL database of its own, cheaply:
// the migrations run once, into a template database named by their hash,
// and every test clones it (CREATE DATABASE ... TEMPLATE) and drops its
// clone when it ends. Tests using it may run in parallel, in several test
// binaries at once.
//
// The server is named by DISBURSE_TEST_POSTGRES_URL, a postgres:// URL of
// a role that may create databases; the database in it is only connected
// to, to create and drop the others. Without it the tests are skipped.
package pgtest

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/sqlstore"
)

// EnvURL is the variable that names the test server.
const EnvURL = "DISBURSE_TEST_POSTGRES_URL"

// templateLock is the advisory lock (on the server's admin database) that
// one test binary holds while it builds the template, so that binaries
// started together build it once.
const templateLock = 0x64697362 // "disb"

// template is built once per test binary.
var template struct {
	once sync.Once
	name string
	err  error
}

// Open returns a store on a new, migrated, empty database, closed and
// dropped when the test ends. It has the signature storetest.Run takes.
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

// URL returns the URL of a new, migrated, empty database, dropped when the
// test ends (after the test's own cleanups, registered later, have closed
// their connections). It skips the test when EnvURL is not set.
func URL(tb testing.TB) string {
	tb.Helper()
	admin := os.Getenv(EnvURL)
	if admin == "" {
		tb.Skip("set " + EnvURL + "=postgres://postgres@127.0.0.1:5432/test?sslmode=disable to run the PostgreSQL tests")
	}
	ctx := context.Background()
	template.once.Do(func() { template.name, template.err = ensureTemplate(ctx, admin) })
	if template.err != nil {
		tb.Fatalf("pgtest: template database: %v", template.err)
	}
	name := "disburse_test_" + strings.ToLower(rand.Text()[:16]) // unquoted names fold to lower case
	if err := adminExec(ctx, admin, "CREATE DATABASE "+name+" TEMPLATE "+template.name); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	// A test's commits need not survive a crash: not waiting for the WAL
	// flush at every commit makes the tests much faster.
	if err := adminExec(ctx, admin, "ALTER DATABASE "+name+" SET synchronous_commit = off"); err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	tb.Cleanup(func() {
		// FORCE: a connection a test leaked must not keep its database.
		if err := adminExec(ctx, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	u, err := withDatabase(admin, name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return u
}

// ensureTemplate returns the name of the template database for the current
// migrations, building it if no test binary has. It is built under another
// name and renamed when complete, so a binary killed halfway leaves no
// half-migrated template behind.
func ensureTemplate(ctx context.Context, admin string) (string, error) {
	hash, err := migrationsHash()
	if err != nil {
		return "", err
	}
	name := "disburse_template_" + hash
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return "", fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx) // ends the session: releases the advisory lock too
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return "", fmt.Errorf("lock: %w", err)
	}
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return "", err
	}
	if exists {
		return name, nil
	}
	building := name + "_building"
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + building + " WITH (FORCE)",
		"CREATE DATABASE " + building,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
	}
	u, err := withDatabase(admin, building)
	if err != nil {
		return "", err
	}
	if _, err := postgres.Migrate(ctx, u); err != nil {
		return "", err
	}
	for _, q := range []string{
		"ALTER DATABASE " + building + " RENAME TO " + name,
		// A session connected to the template would make every clone fail.
		"ALTER DATABASE " + name + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return "", fmt.Errorf("%s: %w", q, err)
		}
	}
	return name, nil
}

// migrationsHash is a short hash of the migration files' names and
// contents: a new migration gets a new template.
func migrationsHash() (string, error) {
	h := sha256.New()
	dir := postgres.Migrations()
	err := fs.WalkDir(dir, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(dir, path)
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash migrations: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}

// adminExec runs one statement on the admin database in a connection of
// its own: CREATE and DROP DATABASE cannot run in a transaction or share
// a pool with the tests. Like the tests' commits, these need not survive a
// crash: not waiting for the WAL flush at each CREATE, ALTER and DROP
// DATABASE makes a test's database a fraction of the cost.
func adminExec(ctx context.Context, admin, query string) error {
	cfg, err := pgx.ParseConfig(admin)
	if err != nil {
		return fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	cfg.RuntimeParams["synchronous_commit"] = "off"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, query); err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	return nil
}

// withDatabase returns the URL admin with its database replaced by name.
func withDatabase(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}
