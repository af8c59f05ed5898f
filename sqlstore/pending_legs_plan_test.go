package sqlstore_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
)

// TestPendingLegsPlanWithoutStatistics: on PostgreSQL, a registration
// group's statements of its payees' held legs and of their organisations
// look each msisdn, each leg and each organisation up in an index, never
// reading a whole table, on a table of many payments that has no
// statistics (just filled, or autovacuum off), for as many msisdns as the
// largest group (128), in the plan PostgreSQL keeps for every value (a
// pipeline's statements are prepared, and one planned while the table
// was empty must not scan it once it is full).
func TestPendingLegsPlanWithoutStatistics(t *testing.T) {
	ctx := t.Context()
	conn := pgtest.Conn(t)
	// A temporary table of the same name comes first on the search path:
	// the pool's database may hold statistics of an earlier test; this
	// table has none.
	for _, q := range []string{
		`SET jit = off`,
		`SET plan_cache_mode = force_generic_plan`,
		`CREATE TEMP TABLE payments (LIKE public.payments INCLUDING ALL)`,
		`INSERT INTO payments (id, batch_id, organisation_id, msisdn, amount, firstname, lastname, external_id,
			status, is_member, created_at, submitted_at, reversal_due_at, referral_amount, referral_msisdn, referral_status)
		SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), (254700000000 + i)::text, 100, 'A', 'B', '',
			'PENDING', false, 1, 1, 2, 0, '', ''
		FROM generate_series(1, 50000) AS i`,
	} {
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	msisdns := make([]string, 128)
	for i := range msisdns {
		msisdns[i] = fmt.Sprint(254700000000 + 1 + i*300)
	}
	legs, organisations, _ := sqlstore.PendingLegsQueries(postgres.Engine{}, msisdns)
	values := "'{" + strings.Join(msisdns, ",") + "}'"
	for _, c := range []struct {
		name, query string
		want        []string
	}{
		{"legs", legs, []string{"Index Cond: (msisdn = ", "Index Cond: (referral_msisdn = ", "Index Cond: (id = ", "LockRows"}},
		{"organisations", organisations, []string{"Index Cond: (msisdn = ", "Index Cond: (referral_msisdn = ", "Index Scan using organisations_pkey"}},
	} {
		if _, err := conn.Exec(ctx, `PREPARE `+c.name+`(TEXT[], TEXT[]) AS `+c.query); err != nil {
			t.Fatalf("prepare %s: %v", c.name, err)
		}
		rows, err := conn.Query(ctx, `EXPLAIN EXECUTE `+c.name+`(`+values+`, `+values+`)`)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		text := strings.Join(plan, "\n")
		if strings.Contains(text, "Seq Scan") {
			t.Errorf("the %s' lookup reads a whole table:\n%s", c.name, text)
		}
		for _, want := range c.want {
			if !strings.Contains(text, want) {
				t.Errorf("the %s' lookup has no %q:\n%s", c.name, want, text)
			}
		}
	}
}
