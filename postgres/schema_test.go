package postgres_test

import (
	"context"
	"fmt"

	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/storetest"
)

// TestSchemaFile: schema.sql is the schema the migrations build, every
// table, constraint and index of PostgreSQL's in one file for a reader,
// read from the catalog. After a migration,
// DISBURSE_UPDATE_SCHEMA=1 go test -run TestSchemaFile ./postgres writes it.
func TestSchemaFile(t *testing.T) {
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tables, err := textColumn(ctx, conn, `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname <> 'goose_db_version' ORDER BY c.relname`)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("-- The schema postgres/migrations build, written by TestSchemaFile from the\n-- catalog: read it, do not edit it (DISBURSE_UPDATE_SCHEMA=1 go test -run\n-- TestSchemaFile ./postgres).\n")
	for _, table := range tables {
		columns, err := textColumn(ctx, conn, `SELECT a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
				|| CASE WHEN a.attgenerated = 's' THEN ' GENERATED ALWAYS AS (' || pg_get_expr(d.adbin, d.adrelid) || ') STORED'
					WHEN d.adbin IS NOT NULL THEN ' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid) ELSE '' END
				|| CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
			FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, table)
		if err != nil {
			t.Fatal(err)
		}
		constraints, err := textColumn(ctx, conn, `SELECT 'CONSTRAINT ' || conname || ' ' || pg_get_constraintdef(oid)
			FROM pg_constraint WHERE conrelid = $1::regclass ORDER BY contype, conname`, table)
		if err != nil {
			t.Fatal(err)
		}
		indexes, err := textColumn(ctx, conn, `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
			JOIN pg_class c ON c.oid = i.indexrelid
			WHERE i.indrelid = $1::regclass
			AND NOT EXISTS (SELECT FROM pg_constraint k WHERE k.conindid = i.indexrelid)
			ORDER BY c.relname`, table)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "\nCREATE TABLE %s (\n    %s\n);\n", table, strings.Join(append(columns, constraints...), ",\n    "))
		for _, ix := range indexes {
			b.WriteString(strings.Replace(ix, " public.", " ", 1) + ";\n")
		}
	}
	storetest.SchemaFile(t, "schema.sql", b.String())
}

// strings_ runs a query of one text column.
func textColumn(ctx context.Context, conn *pgx.Conn, query string, args ...any) ([]string, error) {
	rows, err := conn.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}
