package bench

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// TestFloorWritesWhatServiceWrites adds and submits one batch through the
// API and another, of the same shape, through the floor, and compares what
// each left in the database: the same rows in the same tables, in the same
// states, or a ratio to the floor would compare different work.
func TestFloorWritesWhatServiceWrites(t *testing.T) {
	for _, store := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "bench.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(store.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			e, err := start(ctx, Config{DatabaseURL: store.url(t), Open: openTestStore, Chunk: 25, Payments: 60})
			if err != nil {
				t.Fatal(err)
			}
			defer e.close()
			o, err := setup(ctx, e, 1_000_000_00, 7)
			if err != nil {
				t.Fatal(err)
			}
			fl, err := openFloor(ctx, e.cfg.DatabaseURL, o, e.clock)
			if err != nil {
				t.Fatal(err)
			}
			defer fl.close()

			// Each side's batch, and what the tables gained while it ran.
			sides := map[string]func(spec batchSpec) (string, error){
				"service": func(spec batchSpec) (string, error) {
					id, _, _, err := serviceRun(ctx, e, o, spec)
					return id, err
				},
				"floor": func(spec batchSpec) (string, error) {
					id, err := createBatch(ctx, e.client, o, "floor "+spec.tag)
					if err != nil {
						return "", err
					}
					if _, err := fl.add(ctx, id, spec); err != nil {
						return "", err
					}
					_, err = fl.submit(ctx, id, spec)
					return id, err
				},
			}
			// A first batch through the floor creates the members' wallets
			// (a submit's first payments to them do), so that neither side
			// below does.
			if _, err := sides["floor"](o.newBatch("wallets", 20, true)); err != nil {
				t.Fatal(err)
			}
			wrote := make(map[string]map[string][]string)
			for _, side := range []string{"service", "floor"} {
				before := snapshot(t, fl, o, "")
				id, err := sides[side](o.newBatch(side, e.cfg.Payments, true))
				if err != nil {
					t.Fatalf("%s: %v", side, err)
				}
				wrote[side] = gained(before, snapshot(t, fl, o, id))
			}
			if diff := cmp.Diff(wrote["service"], wrote["floor"]); diff != "" {
				t.Errorf("what the floor wrote differs from what the service wrote (-service +floor):\n%s", diff)
			}
			if len(wrote["service"]["transfers of the batch"]) == 0 || len(wrote["service"]["notifications"]) == 0 {
				t.Errorf("the service wrote no transfers or no notifications: %v", wrote["service"])
			}
			ok, problems, err := checkLedger(ctx, e.client)
			if err != nil || !ok {
				t.Errorf("ledger check: %v %v", err, problems)
			}
		})
	}
}

func openTestStore(ctx context.Context, url string) (*sqlstore.Store, error) {
	if path, ok := strings.CutPrefix(url, "sqlite:"); ok {
		return sqlite.Open(ctx, path)
	}
	return postgres.Open(ctx, url)
}

// snapshot reads, with the floor's connection, what a side's writes can
// change, each as sorted lines of text: tables' sizes, the organisation's
// balances, and the batch's rows grouped by everything but their ids and
// times (which differ between the sides), times only as set or not.
func snapshot(t *testing.T, fl *floor, o *org, batchID string) map[string][]string {
	t.Helper()
	type query struct {
		cols int
		sql  string
	}
	queries := map[string]query{
		"rows": {2, `SELECT 'payments', COUNT(*) FROM payments UNION ALL SELECT 'transfers', COUNT(*) FROM transfers
			UNION ALL SELECT 'notifications', COUNT(*) FROM notifications UNION ALL SELECT 'accounts', COUNT(*) FROM accounts
			UNION ALL SELECT 'member_checks', COUNT(*) FROM member_checks`},
		"balances": {2, `SELECT kind, CAST(SUM(balance) AS BIGINT) FROM accounts
			WHERE organisation_id = '` + o.id + `' OR kind = 'WALLET' GROUP BY kind`},
		"notifications": {10, `SELECT channel, status, attempts, message, lease_owner, last_error, lease_until IS NULL, sent_at IS NULL,
			next_attempt_at = created_at, COUNT(*) FROM notifications
			GROUP BY channel, status, attempts, message, lease_owner, last_error, lease_until IS NULL, sent_at IS NULL, next_attempt_at = created_at`},
	}
	if batchID != "" {
		queries["payments of the batch"] = query{18, `SELECT status, referral_status, is_member, held, referral_held, msisdn = referral_msisdn,
			external_id <> '', held_external_id = external_id, firstname, lastname,
			submitted_at IS NULL, settled_at IS NULL, reversal_due_at IS NULL, cancelled_at IS NULL, referral_settled_at IS NULL,
			COUNT(*), CAST(SUM(amount) AS BIGINT), CAST(SUM(referral_amount) AS BIGINT)
			FROM payments WHERE batch_id = '` + batchID + `'
			GROUP BY status, referral_status, is_member, held, referral_held, msisdn = referral_msisdn, external_id <> '', held_external_id = external_id,
			firstname, lastname, submitted_at IS NULL, settled_at IS NULL, reversal_due_at IS NULL, cancelled_at IS NULL, referral_settled_at IS NULL`}
		queries["transfers of the batch"] = query{8, `SELECT t.kind, t.leg, t.reference, f.kind, a.kind, t.created_at = p.submitted_at,
			COUNT(*), CAST(SUM(t.amount) AS BIGINT)
			FROM transfers t JOIN payments p ON p.id = t.payment_id JOIN accounts a ON a.id = t.to_account_id JOIN accounts f ON f.id = t.from_account_id
			WHERE p.batch_id = '` + batchID + `' GROUP BY t.kind, t.leg, t.reference, f.kind, a.kind, t.created_at = p.submitted_at`}
		queries["batch"] = query{17, `SELECT status, payments_amount, payments_count, referrals_amount, draft_amount, draft_count,
			pending_amount, pending_count, settled_amount, settled_count, cancelled_amount, cancelled_count, held_amount,
			submitted_at IS NULL, closed_at IS NULL, reversal_due_at IS NULL, (SELECT COUNT(*) FROM member_checks WHERE batch_id = '` + batchID + `')
			FROM batches WHERE id = '` + batchID + `'`}
	}
	tx, err := fl.db.begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.rollback(t.Context())
	out := make(map[string][]string)
	for name, q := range queries {
		err := tx.query(t.Context(), q.sql, nil, func(scan func(...any) error) error {
			cols := make([]any, q.cols)
			for k := range cols {
				cols[k] = new(any)
			}
			if err := scan(cols...); err != nil {
				return err
			}
			line := make([]string, len(cols))
			for k, c := range cols {
				line[k] = fmt.Sprint(*c.(*any))
			}
			out[name] = append(out[name], strings.Join(line, " | "))
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		slices.Sort(out[name])
	}
	return out
}

// gained is after with the lines that counted rows or balances made
// differences from before: what a side added.
func gained(before, after map[string][]string) map[string][]string {
	out := make(map[string][]string)
	for name, lines := range after {
		old := make(map[string]string) // a line's key (all but its last value) to its last value
		for _, l := range before[name] {
			k := strings.LastIndex(l, " | ")
			old[l[:max(k, 0)]] = l[k+3:]
		}
		for _, l := range lines {
			if name == "payments of the batch" || name == "transfers of the batch" || name == "batch" {
				out[name] = append(out[name], l)
				continue
			}
			k := strings.LastIndex(l, " | ")
			var was, now int64
			fmt.Sscan(old[l[:k]], &was)
			fmt.Sscan(l[k+3:], &now)
			if now != was {
				out[name] = append(out[name], fmt.Sprintf("%s | %+d", l[:k], now-was))
			}
		}
	}
	return out
}
