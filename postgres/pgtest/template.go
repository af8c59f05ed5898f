package pgtest

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/internal/fshash"
	"github.com/disburse/disburse/postgres"
)

// templateLock is the advisory lock (on the server's admin database) that
// one test binary holds while it builds the template, so that binaries
// started together build it once.
const templateLock = 0x64697362 // "disb"

// templateLayout is hashed with the migrations: a template this package
// cannot use (one built before it kept its fingerprint and seed) has
// another name.
const templateLayout = "pgtest template: fingerprint and seed in its comment\n"

// template is the migrated database every pool database is cloned from,
// and what emptying one compares and puts back. Its comment keeps them,
// for every test binary: the fingerprint on the first line, the seed
// after it.
type template struct {
	name        string
	fingerprint string // of its catalog and goose's versions (fingerprint.go)
	seed        string // statements that put back the rows the migrations made
}

// ensureTemplate returns the template database for the migrations of
// hash, building it if no test binary has. It is built under another name
// and renamed when complete, so a binary killed halfway leaves no
// half-migrated template behind.
func ensureTemplate(ctx context.Context, admin, hash string) (template, error) {
	name := "disburse_template_" + hash
	conn, err := connect(ctx, admin)
	if err != nil {
		return template{}, err
	}
	defer conn.Close(ctx) // ends the session: releases the advisory lock too
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", templateLock); err != nil {
		return template{}, fmt.Errorf("lock: %w", err)
	}
	var comment *string
	err = conn.QueryRow(ctx, "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = $1", name).Scan(&comment)
	switch {
	case err == nil && comment != nil:
		fingerprint, seed, _ := strings.Cut(*comment, "\n")
		return template{name, fingerprint, seed}, nil
	case err == nil:
		return template{}, fmt.Errorf("%s has no comment: drop it", name)
	case !errors.Is(err, pgx.ErrNoRows):
		return template{}, err
	}
	building := name + "_building"
	for _, q := range []string{
		"DROP DATABASE IF EXISTS " + building + " WITH (FORCE)",
		"CREATE DATABASE " + building,
		// Not cloned, but part of the fingerprint: what every pool database is given.
		"ALTER DATABASE " + building + " SET synchronous_commit = off",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return template{}, fmt.Errorf("%s: %w", q, err)
		}
	}
	u, err := withDatabase(admin, building)
	if err != nil {
		return template{}, err
	}
	if _, err := postgres.Migrate(ctx, u); err != nil {
		return template{}, err
	}
	t := template{name: name}
	if t.fingerprint, t.seed, err = describe(ctx, u); err != nil {
		return template{}, err
	}
	for _, q := range []string{
		"COMMENT ON DATABASE " + building + " IS " + quote(t.fingerprint+"\n"+t.seed),
		"ALTER DATABASE " + building + " RENAME TO " + name,
		// A session connected to the template would make every clone fail.
		"ALTER DATABASE " + name + " WITH IS_TEMPLATE true ALLOW_CONNECTIONS false",
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			return template{}, fmt.Errorf("%s: %w", q, err)
		}
	}
	return t, dropStalePools(ctx, conn, hash)
}

// seedTables lists the tables emptying empties, with the columns an
// INSERT may set (not the generated ones).
const seedTables = `
SELECT c.oid::regclass::text, string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.oid <> 'goose_db_version'::regclass
	AND ns.nspname <> 'information_schema' AND ns.nspname NOT LIKE 'pg\_%'
GROUP BY c.oid ORDER BY 1`

// seedSequences lists the sequences emptying restarts, with where they
// stand.
const seedSequences = `
SELECT format('%I.%I', schemaname, sequencename), last_value FROM pg_sequences
WHERE last_value IS NOT NULL
	AND format('%I.%I', schemaname, sequencename)::regclass IS DISTINCT FROM pg_get_serial_sequence('goose_db_version', 'id')::regclass
ORDER BY 1`

// describe returns the fingerprint of the database at u, and its seed:
// the statements that put back the rows the migrations made (the funding
// account) and set the sequences they used where they left them.
func describe(ctx context.Context, u string) (fingerprint, seed string, err error) {
	conn, err := connect(ctx, u)
	if err != nil {
		return "", "", err
	}
	defer conn.Close(ctx)
	catalog, versions, err := fingerprintOf(ctx, conn)
	if err != nil {
		return "", "", err
	}
	var statements []string
	rows, err := conn.Query(ctx, seedTables)
	if err != nil {
		return "", "", fmt.Errorf("seed: %w", err)
	}
	tables, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct{ Name, Columns string }])
	if err != nil {
		return "", "", fmt.Errorf("seed: %w", err)
	}
	for _, t := range tables {
		var json *string
		if err := conn.QueryRow(ctx, "SELECT jsonb_agg(t)::text FROM "+t.Name+" AS t").Scan(&json); err != nil {
			return "", "", fmt.Errorf("seed: %w", err)
		}
		if json != nil {
			statements = append(statements, fmt.Sprintf("INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %[2]s FROM jsonb_populate_recordset(NULL::%[1]s, %[3]s);",
				t.Name, t.Columns, quote(*json)))
		}
	}
	if rows, err = conn.Query(ctx, seedSequences); err != nil {
		return "", "", fmt.Errorf("seed: %w", err)
	}
	sequences, err := pgx.CollectRows(rows, pgx.RowToStructByPos[struct {
		Name  string
		Value int64
	}])
	if err != nil {
		return "", "", fmt.Errorf("seed: %w", err)
	}
	for _, s := range sequences {
		statements = append(statements, fmt.Sprintf("SELECT setval(%s, %d);", quote(s.Name), s.Value))
	}
	return catalog + versions, strings.Join(statements, "\n"), nil
}

// quote returns s as an SQL string literal.
func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// dropStalePools drops the pool databases of other migrations that no
// test holds: new migrations (the only time a template is built) leave
// the old pool unused.
func dropStalePools(ctx context.Context, conn *pgx.Conn, hash string) error {
	rows, err := conn.Query(ctx, `SELECT datname FROM pg_database
		WHERE datname LIKE 'disburse\_pool\_%' AND datname NOT LIKE 'disburse\_pool\_' || $1 || '\_%'`, hash)
	if err != nil {
		return err
	}
	stale, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return err
	}
	for _, name := range stale {
		var claimed bool
		if err := conn.QueryRow(ctx, "SELECT NOT pg_try_advisory_lock($1)", slotLock(name)).Scan(&claimed); err != nil {
			return err
		}
		if claimed {
			continue // a binary of those migrations is running
		}
		if _, err := conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			return fmt.Errorf("drop %s: %w", name, err)
		}
		if _, err := conn.Exec(ctx, "SELECT pg_advisory_unlock($1)", slotLock(name)); err != nil {
			return err
		}
	}
	return nil
}

// migrationsHash names the template of the current migrations.
func migrationsHash() (string, error) { return fshash.Of(templateLayout, postgres.Migrations()) }
