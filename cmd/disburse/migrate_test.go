package main

import (
	"database/sql"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
)

// TestMigrateReports: `disburse migrate` on an empty database prints every
// migration the build embeds, by version and name, in order; run again it
// prints that none is due; on a database a newer build migrated it fails,
// saying so. On SQLite and on PostgreSQL.
func TestMigrateReports(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "m.db")
		testMigrateReports(t, bin, "sqlite:"+file, sqlite.Migrations(), func(query string) {
			t.Helper()
			sqliteExec(t, file, query)
		})
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := pgtest.URL(t) // migrated: emptied below
		postgresExec(t, url, "DROP SCHEMA public CASCADE; CREATE SCHEMA public")
		testMigrateReports(t, bin, url, postgres.Migrations(), func(query string) {
			t.Helper()
			postgresExec(t, url, query)
		})
	})
}

func testMigrateReports(t *testing.T, bin, url string, embedded fs.FS, exec func(query string)) {
	names, err := fs.Glob(embedded, "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("embedded migrations: %v %v", names, err)
	}
	var want strings.Builder
	for _, name := range names { // 00017_held_from_add.sql: applied 00017 held_from_add
		version, rest, _ := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		fmt.Fprintf(&want, "applied %s %s\n", version, rest)
	}
	last, _, _ := strings.Cut(names[len(names)-1], "_")
	fmt.Fprintf(&want, "the database is at %s\n", last)

	stdout, stderr, code := runBinary(t, bin, nil, "migrate", "--database-url", url)
	if code != 0 || stdout != want.String() {
		t.Errorf("migrate on an empty database: exit %d, stdout\n%s\nwant\n%s\nstderr %s", code, stdout, want.String(), stderr)
	}
	stdout, stderr, code = runBinary(t, bin, []string{"DISBURSE_DATABASE_URL=" + url}, "migrate")
	if wantNone := "no migrations due: the database is at " + last + "\n"; code != 0 || stdout != wantNone {
		t.Errorf("migrate again: exit %d, stdout %q, want %q; stderr %s", code, stdout, wantNone, stderr)
	}

	// A newer release's migration, recorded as goose records it.
	exec("INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)")
	stdout, stderr, code = runBinary(t, bin, nil, "migrate", "--database-url", url)
	if code == 0 || stdout != "" || !strings.Contains(stderr, "at migration 99999, newer than this build's last, "+last) {
		t.Errorf("migrate on a newer schema: exit %d, stdout %q, stderr %q; want a failure naming both versions", code, stdout, stderr)
	}
}

// TestOlderBuildOnNewerSchema: serve of a build older than the database's
// schema (a newer release migrated it) starts, finding nothing to apply,
// and is alive and ready (/healthz and /readyz 200), so that a rolling
// upgrade always has a replica to route to (docs/operations.md "Upgrading
// a fleet").
// On SQLite and on PostgreSQL.
func TestOlderBuildOnNewerSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	const newer = "INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)"
	t.Run("sqlite", func(t *testing.T) {
		t.Parallel()
		file := filepath.Join(t.TempDir(), "newer.db")
		if _, stderr, code := runBinary(t, bin, nil, "migrate", "--database-url", "sqlite:"+file); code != 0 {
			t.Fatalf("migrate: %s", stderr)
		}
		sqliteExec(t, file, newer)
		testOlderBuild(t, bin, "sqlite:"+file)
	})
	t.Run("postgres", func(t *testing.T) {
		t.Parallel()
		url := pgtest.URL(t)
		postgresExec(t, url, newer)
		testOlderBuild(t, bin, url)
	})
}

func testOlderBuild(t *testing.T, bin, url string) {
	s := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", url)
	h := httpClient{t: t, base: s.base}
	if status, body := h.do("GET", "/healthz", "", ""); status != 200 {
		t.Errorf("/healthz on a newer schema: %d %s, want 200", status, body)
	}
	if status, body := h.do("GET", "/readyz", "", ""); status != 200 {
		t.Errorf("/readyz on a newer schema: %d %s, want 200", status, body)
	}
	s.stop(t)
}

// sqliteExec runs one statement on a SQLite file.
func sqliteExec(t *testing.T, file, query string) {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// postgresExec runs statements on a PostgreSQL database.
func postgresExec(t *testing.T, url, query string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	if _, err := conn.Exec(t.Context(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}
