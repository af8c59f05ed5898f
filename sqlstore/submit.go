package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/disburse/disburse"
)

// SubmitPayments pays a DRAFT batch in four statements and one read, each
// over the batch's rows in the database, none of them through Go
// (docs/benchmarks.md, "The submit"):
//
//  1. the payments' states, from membership read once, in the one
//     UPDATE: every later statement reads a leg's fate from its stored
//     status, never from the members again, so that a payee registering
//     meanwhile (a new snapshot per statement on PostgreSQL) cannot make
//     a leg's transfer disagree with its state;
//  2. the members' missing wallets;
//  3. a transfer a leg, its id the plan's prefix and the payment's seq;
//  4. a notification a leg told (none in a sandbox);
//
// and the transfers just written, summed by account, kind and leg.
func (t *tx) SubmitPayments(ctx context.Context, p disburse.SubmitPlan) ([]disburse.LegTotal, error) {
	q := submitSQL{e: t.e, p: p}
	steps := []struct {
		what  string
		query string
		args  []any
	}{
		{"states", q.updateStates(), q.updateArgs()},
		{"wallets", q.insertWallets(), q.walletArgs()},
		{"transfers", q.insertTransfers(), q.transferArgs()},
	}
	if !p.Sandbox {
		steps = append(steps, struct {
			what  string
			query string
			args  []any
		}{"notifications", q.insertNotifications(), q.notificationArgs()})
	}
	for _, s := range steps {
		if _, err := t.exec(ctx, s.query, s.args...); err != nil {
			return nil, fmt.Errorf("submit payments: %s: %w", s.what, err)
		}
	}
	return t.legTotals(ctx, q.transferPrefix)
}

// legTotals sums the transfers whose ids begin with prefix: one
// statement's, by the primary key's range.
func (t *tx) legTotals(ctx context.Context, prefix string) ([]disburse.LegTotal, error) {
	rows, err := t.query(ctx, `SELECT to_account_id, kind, leg, COUNT(*), SUM(amount) FROM transfers
		WHERE id >= ? AND id <= ? GROUP BY to_account_id, kind, leg`, prefix+"000000000000", prefix+"ffffffffffff")
	var out []disburse.LegTotal
	if err == nil {
		err = forEach(rows, func(r *sql.Rows) error {
			var lt disburse.LegTotal
			err := r.Scan(&lt.To, &lt.Kind, &lt.Leg, &lt.Count, &lt.Amount)
			out = append(out, lt)
			return err
		})
	}
	if err != nil {
		return nil, fmt.Errorf("submit payments: totals: %w", err)
	}
	return out, nil
}
