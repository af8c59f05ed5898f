package pgtest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestReclaimedDatabaseIsAsCloned: whatever a test left in its database,
// the next test to claim it gets it empty and as the template made it.
func TestReclaimedDatabaseIsAsCloned(t *testing.T) {
	p := thePool(t)
	ctx := t.Context()
	n, err := p.claim(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := p.release(context.Background(), n); err != nil {
			t.Error(err)
		}
	})
	// Rows in tables that refer to each other (api_keys' key is checked
	// at once, accounts' and organisations' at COMMIT), and the funding
	// account the migrations made, changed.
	const addOrganisation = `INSERT INTO organisations (id, name, currency, referrals_enabled, reversal_period_us, created_at)
			VALUES ('01a22000-0000-7000-8000-000000000001', 'Left over', 'KES', false, 0, 1);
		INSERT INTO api_keys (id, organisation_id, hash, prefix, created_at)
			VALUES (gen_random_uuid(), '01a22000-0000-7000-8000-000000000001', 'h', 'p', 1);
		UPDATE accounts SET balance = -100 WHERE kind = 'FUNDING'`
	for _, c := range []struct {
		name      string
		change    string // with DATABASE for the database's name
		leaveOpen bool   // the session that made the change, in its transaction
		restored  string // a query true once the change is undone
	}{
		{"rows", addOrganisation, false,
			`SELECT NOT EXISTS (SELECT FROM organisations) AND (SELECT balance = 0 FROM accounts WHERE kind = 'FUNDING')`},
		{"thousands of rows", addOrganisation + `; INSERT INTO audit_log (id, at, actor, action, subject, before, after)
			SELECT gen_random_uuid(), i, 'a', 'x', 's', '', '{}' FROM generate_series(1, 5000) AS i`, false,
			`SELECT NOT EXISTS (SELECT FROM audit_log) AND NOT EXISTS (SELECT FROM organisations)`},
		{"a session in a transaction", "BEGIN; " + addOrganisation, true,
			`SELECT NOT EXISTS (SELECT FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend')`},
		{"a column", "ALTER TABLE organisations ADD COLUMN extra int", false,
			`SELECT NOT EXISTS (SELECT FROM information_schema.columns WHERE column_name = 'extra')`},
		{"a sequence", "CREATE SEQUENCE extra; SELECT nextval('extra')", false,
			`SELECT NOT EXISTS (SELECT FROM pg_sequences WHERE sequencename = 'extra')`},
		{"a setting of the database", "ALTER DATABASE DATABASE SET statement_timeout = '1s'", false,
			`SELECT current_setting('statement_timeout') <> '1s'`},
		{"goose's versions", "INSERT INTO goose_db_version (version_id, is_applied) VALUES (99999, true)", false,
			`SELECT max(version_id) < 99999 FROM goose_db_version`},
		{"the schema", "DROP SCHEMA public CASCADE; CREATE SCHEMA public", false,
			`SELECT NOT EXISTS (SELECT FROM organisations)`},
	} {
		t.Run(c.name, func(t *testing.T) {
			u, err := p.prepare(ctx, n)
			if err != nil {
				t.Fatal(err)
			}
			conn, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(context.Background())
			if _, err := conn.Exec(ctx, strings.ReplaceAll(c.change, "DATABASE DATABASE", "DATABASE "+p.name(n))); err != nil {
				t.Fatal(err)
			}
			if !c.leaveOpen {
				conn.Close(ctx)
			}
			if _, err := p.prepare(ctx, n); err != nil {
				t.Fatal(err)
			}
			check, err := pgx.Connect(ctx, u)
			if err != nil {
				t.Fatal(err)
			}
			defer check.Close(ctx)
			// Asked again for up to 5 s: a session that closed a moment ago
			// (the reclaim's own) leaves pg_stat_activity a little after
			// its client has gone; a session the reclaim missed never does.
			var restored bool
			deadline := time.Now().Add(5 * time.Second)
			for {
				err = check.QueryRow(ctx, c.restored).Scan(&restored)
				if (err == nil && restored) || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil || !restored {
				t.Errorf("after %s, reclaimed: %s is %v (%v)", c.name, c.restored, restored, err)
			}
			fingerprint, seed, err := describe(ctx, u)
			if err != nil || fingerprint != p.template.fingerprint || seed != p.template.seed {
				t.Errorf("after %s, reclaimed: fingerprint %s and seed\n%s\n(%v), want the template's %s and\n%s",
					c.name, fingerprint, seed, err, p.template.fingerprint, p.template.seed)
			}
		})
	}
}
