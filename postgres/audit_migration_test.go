package postgres_test

import (
	"database/sql"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/pressly/goose/v3"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/storetest"
)

// TestAuditMigration00018: the audit log's entries from before migration
// 00018 come out of it with their actors and details in the new form; the
// way down (00019 and 00018's Down) runs first.
func TestAuditMigration00018(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, postgres.Migrations(), goose.WithDisableGlobalRegistry(true))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 17); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, storetest.AuditBefore00018); err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	storetest.CheckAuditMigrated(t, s)
	// The previous release, still running beside the new one during a
	// rolling upgrade, writes entries as it did before 00018.
	previous := `INSERT INTO audit_log (id, at, actor, action, organisation_id, subject, before, after)
		VALUES ('01a22000-0000-7000-8000-000000000009', 9, 'operator API', 'apikey.revoke', NULL, 'x', '', '{}')`
	if _, err := db.ExecContext(ctx, previous); err != nil {
		t.Errorf("the previous release's audit entry after 00018: %v", err)
	}
}
