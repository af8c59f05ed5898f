package sqlite_test

import (
	"path/filepath"
	"strings"
	"testing"

	"database/sql"

	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/storetest"
)

// TestSchemaFile: schema.sql is the schema the migrations build, every
// table and index of SQLite's in one file for a reader. After a migration,
// DISBURSE_UPDATE_SCHEMA=1 go test -run TestSchemaFile ./sqlite writes it.
func TestSchemaFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "schema.db")
	if err := sqlite.Migrate(t.Context(), file); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.QueryContext(t.Context(), `SELECT sql FROM sqlite_schema
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' AND name <> 'goose_db_version'
		ORDER BY CASE type WHEN 'table' THEN 0 ELSE 1 END, tbl_name, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	b.WriteString("-- The schema sqlite/migrations build, written by TestSchemaFile: read it,\n-- do not edit it (DISBURSE_UPDATE_SCHEMA=1 go test -run TestSchemaFile ./sqlite).\n")
	for rows.Next() {
		var stmt string
		if err := rows.Scan(&stmt); err != nil {
			t.Fatal(err)
		}
		b.WriteString("\n" + stmt + ";\n")
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	storetest.SchemaFile(t, "schema.sql", b.String())
}

// TestMigratesAFileFromBeforeThe00004: a file migrated before SQLite had
// its (empty) 00004 takes it on the next start, out of order.
func TestMigratesAFileFromBeforeThe00004(t *testing.T) {
	file := filepath.Join(t.TempDir(), "old.db")
	if err := sqlite.Migrate(t.Context(), file); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(t.Context(), `DELETE FROM goose_db_version WHERE version_id = 4`); err != nil {
		t.Fatal(err)
	}
	if err := sqlite.Migrate(t.Context(), file); err != nil {
		t.Fatalf("migrating a file without 00004: %v", err)
	}
	var n int
	if err := db.QueryRowContext(t.Context(), `SELECT count(*) FROM goose_db_version WHERE version_id = 4`).Scan(&n); err != nil || n != 1 {
		t.Errorf("00004 applied %d times (%v), want once", n, err)
	}
}
