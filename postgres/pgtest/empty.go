package pgtest

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// errStale says a pool database is missing, or that a test changed what
// emptying it would not restore: it must be cloned again.
var errStale = errors.New("the pool database must be cloned again")

// emptyTimeout bounds the emptying of one database: a session it could
// not end would hold its locks for ever.
const emptyTimeout = time.Minute

// endSessions ends every other client session on the database and waits
// (up to 10 s each) until it has gone. Autovacuum is left alone: it gives
// way to the DELETE and TRUNCATE below.
const endSessions = `SELECT pg_terminate_backend(pid, 10000) FROM pg_stat_activity
WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`

// emptyTables deletes the rows of every table but goose's, and restarts
// every sequence that has been used, but goose's. A test leaves a few
// rows in a few tables: one DELETE of each, in one statement so that the
// foreign keys are checked once all are gone, costs far less than
// TRUNCATE, which makes new files for every table it empties, its indexes
// and, by CASCADE, every table that refers to it. A table of thousands of
// rows is truncated, so that the next test does not scan what DELETE
// left behind.
const emptyTables = `DO $$
DECLARE
	t regclass;
	n bigint;
	big text[] := '{}';
	small text[] := '{}';
BEGIN
	FOR t IN
		SELECT c.oid FROM pg_class c JOIN pg_namespace ns ON ns.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND c.oid <> 'goose_db_version'::regclass
			AND ns.nspname <> 'information_schema' AND ns.nspname NOT LIKE 'pg\_%'
	LOOP
		EXECUTE format('SELECT count(*) FROM (SELECT FROM %s LIMIT 1001) AS r', t) INTO n;
		IF n > 1000 THEN
			big := big || t::text;
		ELSIF n > 0 THEN
			small := small || format('d%s AS (DELETE FROM %s)', cardinality(small), t);
		END IF;
	END LOOP;
	IF big <> '{}' THEN
		EXECUTE 'TRUNCATE ' || array_to_string(big, ', ') || ' CASCADE';
	END IF;
	IF small <> '{}' THEN
		EXECUTE 'WITH ' || array_to_string(small, ', ') || ' SELECT';
	END IF;
	FOR t IN
		SELECT format('%I.%I', schemaname, sequencename)::regclass FROM pg_sequences WHERE last_value IS NOT NULL
	LOOP
		IF t IS DISTINCT FROM pg_get_serial_sequence('goose_db_version', 'id')::regclass THEN
			EXECUTE format('ALTER SEQUENCE %s RESTART', t);
		END IF;
	END LOOP;
END $$`

// empty makes the pool database at u as the template's clone would be,
// or answers errStale.
func (p *pool) empty(ctx context.Context, u string) error {
	ctx, cancel := context.WithTimeout(ctx, emptyTimeout)
	defer cancel()
	conn, err := connect(ctx, u)
	if pgErr := (*pgconn.PgError)(nil); errors.As(err, &pgErr) && pgErr.Code == "3D000" { // invalid_catalog_name
		return errStale
	}
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, endSessions); err != nil {
		return fmt.Errorf("end the sessions of a test before: %w", err)
	}
	catalog, versions, err := fingerprintOf(ctx, conn)
	if catalog != "" && catalog+versions != p.template.fingerprint {
		return errStale
	}
	if err != nil {
		return err
	}
	// One transaction: the rows the migrations made go back in with the
	// emptying that took them out.
	if _, err := conn.Exec(ctx, "BEGIN; "+emptyTables+";\n"+p.template.seed+"\nCOMMIT"); err != nil {
		return fmt.Errorf("empty the tables: %w", err)
	}
	return nil
}
