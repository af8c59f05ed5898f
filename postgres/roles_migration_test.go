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

// TestRolesMigration00020: keys and organisation users from before
// migration 00020 are admins after it, operators hold no role, and what
// the previous release writes beside the new one is an admin's too; the
// way down (00020's Down) runs first.
func TestRolesMigration00020(t *testing.T) {
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
	if _, err := p.DownTo(ctx, 19); err != nil {
		t.Fatal(err)
	}
	for _, stmt := range storetest.RolesBefore00020 {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, stmt := range storetest.RolesFromThePreviousRelease {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			t.Fatalf("the previous release's insert after 00020: %v", err)
		}
	}
	storetest.CheckRolesMigrated(t, s)
}
