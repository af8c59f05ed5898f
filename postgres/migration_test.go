package postgres_test

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/storetest"
)

// TestAuditMigration00018: the audit log's entries from before migration
// 00018 come out of it with their actors and details in the new form; the
// way down (00019 and 00018's Down) runs first.
func TestAuditMigration00018(t *testing.T) {
	db, url := migratedDownTo(t, 17)
	if _, err := db.ExecContext(t.Context(), storetest.AuditBefore00018); err != nil {
		t.Fatal(err)
	}
	storetest.CheckAuditMigrated(t, openURL(t, url))
	// The previous release, still running beside the new one during a
	// rolling upgrade, writes entries as it did before 00018.
	previous := `INSERT INTO audit_log (id, at, actor, action, organisation_id, subject, before, after)
		VALUES ('01a22000-0000-7000-8000-000000000009', 9, 'operator API', 'apikey.revoke', NULL, 'x', '', '{}')`
	if _, err := db.ExecContext(t.Context(), previous); err != nil {
		t.Errorf("the previous release's audit entry after 00018: %v", err)
	}
}

// TestRolesMigration00020: keys and organisation users from before
// migration 00020 are admins after it, operators hold no role, and what
// the previous release writes beside the new one is an admin's too; the
// way down (00020's Down) runs first.
func TestRolesMigration00020(t *testing.T) {
	db, url := migratedDownTo(t, 19)
	exec := func(q string) error { _, err := db.ExecContext(t.Context(), q); return err }
	storetest.RunRolesMigration(t, exec, func() storetest.PortalStore { return openURL(t, url) })
}

// migratedDownTo is a new database, migrated down to version by the
// migrations' Down, and its URL.
func migratedDownTo(t *testing.T, version int64) (*sql.DB, string) {
	t.Helper()
	url := pgtest.URL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.Migrations(), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(t.Context(), version); err != nil {
		t.Fatal(err)
	}
	return db, url
}

// openURL opens the store at url, which migrates it.
func openURL(t *testing.T, url string) *sqlstore.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
