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
// group's lookup of its payees' held legs looks each msisdn up in an
// index, never reading the whole table, on a table of many payments that
// has no statistics (just filled, or autovacuum off), for as many msisdns
// as the largest group (128).
func TestPendingLegsPlanWithoutStatistics(t *testing.T) {
	ctx := t.Context()
	conn := pgtest.Conn(t)
	// A temporary table of the same name comes first on the search path:
	// the pool's database may hold statistics of an earlier test; this
	// table has none.
	for _, q := range []string{
		`SET jit = off`,
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
	query, args := sqlstore.PendingLegsQuery(postgres.Engine{}, msisdns)
	rows, err := conn.Query(ctx, "EXPLAIN "+sqlstore.RebindDollar(query), args...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(plan, "\n")
	for _, line := range plan {
		// The outer lookup of the legs found, by id, may scan a small table.
		if strings.Contains(line, "Seq Scan") && !strings.Contains(line, "Seq Scan on payments p ") {
			t.Errorf("the legs' lookup reads the whole table:\n%s", text)
			break
		}
	}
	for _, want := range []string{"Index Cond: (msisdn = ", "Index Cond: (referral_msisdn = "} {
		if !strings.Contains(text, want) {
			t.Errorf("the legs' lookup has no %q:\n%s", want, text)
		}
	}
}
