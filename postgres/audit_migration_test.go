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
}
