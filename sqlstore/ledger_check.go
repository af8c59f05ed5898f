package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"reflect"
	"strings"

	"github.com/disburse/disburse"
)

// problemLimit bounds the problems each check reports: enough to show the
// pattern without reading millions of rows back. Every check is one
// set-based query that returns only offending rows.
const problemLimit = 20

// check is one audit of LedgerProblems: a query for the offending rows and
// the line that describes each.
type check struct {
	query    string
	describe func(*sql.Rows) (string, error)
}

// LedgerProblems audits the invariants of docs/ledger.md, and two more
// that say where money went: it keeps its currency, and a holding account
// holds what its batches say they hold.
func (t *tx) LedgerProblems(ctx context.Context) ([]string, error) {
	var problems []string
	for _, c := range []check{
		balancesSumToZero, currencyBalancesMatchFunding, transfersKeepCurrency, transfersKeepScope, accountsInTheirScope,
		balancesMatchTransfers, noNegativeBalances, legsMatchTransfers,
		transfersGoWhereTheirKindSays, paymentsBelongToTheirBatch, summariesMatchPayments,
		holdingMatchesBatches,
	} {
		lines, err := list(ctx, t, "ledger check", c.describe, c.query+fmt.Sprintf(" LIMIT %d", problemLimit))
		if err != nil {
			return nil, err
		}
		problems = append(problems, lines...)
	}
	return problems, nil
}

// disagree describes a row of a name and two amounts that should be equal.
func disagree(format string) func(*sql.Rows) (string, error) {
	return func(r *sql.Rows) (string, error) {
		var name string
		var got, want disburse.Money
		err := r.Scan(&name, &got, &want)
		return fmt.Sprintf(format, name, got, want), err
	}
}

// scope is the ledger scope of the account aliased a, as text: "live", or
// the id of the sandbox organisation it belongs to (docs/ledger.md
// "Scopes"). Money never crosses scopes, so each check of sums runs per
// scope.
func scope(a string) string {
	return `CASE WHEN ` + a + `.sandbox_organisation_id IS NULL THEN 'live' ELSE CAST(` + a + `.sandbox_organisation_id AS TEXT) END`
}

// ofScope names a scope in a problem: nothing for the live one, which
// was the only one before sandboxes.
func ofScope(scope string) string {
	if scope == "live" {
		return ""
	}
	return " of sandbox " + scope
}

// balancesSumToZero: double entry, so in each scope all balances, its
// funding account's included, sum to zero.
var balancesSumToZero = check{
	query: `SELECT scope, total FROM (
			SELECT ` + scope("a") + ` AS scope, CAST(COALESCE(SUM(a.balance), 0) AS BIGINT) AS total
			FROM accounts a GROUP BY a.sandbox_organisation_id
		) s WHERE total <> 0 ORDER BY scope`,
	describe: func(r *sql.Rows) (string, error) {
		var scope string
		var total disburse.Money
		err := r.Scan(&scope, &total)
		return fmt.Sprintf("sum of balances%s: %s, not 0.00", ofScope(scope), total), err
	},
}

// currencyBalancesMatchFunding: a funding account has no currency (see
// the schema), so per scope and currency the other accounts' balances sum
// to what the funding accounts moved into that currency, net. The joins
// start from the funding accounts (CROSS JOIN fixes the order for SQLite)
// so that only their transfers are read, through the transfers' account
// indexes.
var currencyBalancesMatchFunding = check{
	query: `SELECT scope, currency, CAST(SUM(held) AS BIGINT), CAST(SUM(funded) AS BIGINT) FROM (
			SELECT ` + scope("a") + ` AS scope, a.currency, a.balance AS held, 0 AS funded FROM accounts a WHERE a.kind <> 'FUNDING'
			UNION ALL
			SELECT ` + scope("a") + `, a.currency, 0, t.amount FROM accounts f CROSS JOIN transfers t CROSS JOIN accounts a
				WHERE f.kind = 'FUNDING' AND t.from_account_id = f.id AND a.id = t.to_account_id
			UNION ALL
			SELECT ` + scope("a") + `, a.currency, 0, -t.amount FROM accounts f CROSS JOIN transfers t CROSS JOIN accounts a
				WHERE f.kind = 'FUNDING' AND t.to_account_id = f.id AND a.id = t.from_account_id
		) x GROUP BY scope, currency HAVING SUM(held) <> SUM(funded) ORDER BY scope, currency`,
	describe: func(r *sql.Rows) (string, error) {
		var scope, currency string
		var got, want disburse.Money
		err := r.Scan(&scope, &currency, &got, &want)
		return fmt.Sprintf("sum of %s balances%s: %s, but %s came from the funding account", currency, ofScope(scope), got, want), err
	},
}

// transfersKeepScope: no transfer moves money between the live scope and a
// sandbox, or between two sandboxes.
var transfersKeepScope = check{
	query: `SELECT t.id, ` + scope("f") + `, ` + scope("a") + ` FROM transfers t
		JOIN accounts f ON f.id = t.from_account_id
		JOIN accounts a ON a.id = t.to_account_id
		WHERE COALESCE(CAST(f.sandbox_organisation_id AS TEXT), '') <> COALESCE(CAST(a.sandbox_organisation_id AS TEXT), '')
		ORDER BY t.id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, from, to string
		err := r.Scan(&id, &from, &to)
		return fmt.Sprintf("transfer %s: moves money from scope %s into scope %s", id, from, to), err
	},
}

// accountsInTheirScope: an organisation's accounts are in its scope (a
// sandbox's own, or live), live wallets and the live funding account in
// the live one, and a sandbox's wallets and funding account name a
// sandbox organisation. transfersKeepScope trusts these.
var accountsInTheirScope = check{
	query: `SELECT a.id, a.kind FROM accounts a
		LEFT JOIN organisations o ON o.id = a.organisation_id
		LEFT JOIN organisations s ON s.id = a.sandbox_organisation_id
		WHERE NOT COALESCE(
			(a.organisation_id IS NOT NULL AND ((o.sandbox AND a.sandbox_organisation_id = o.id)
				OR (NOT o.sandbox AND a.sandbox_organisation_id IS NULL)))
			OR (a.organisation_id IS NULL AND a.sandbox_organisation_id IS NULL AND a.kind IN ('WALLET', 'FUNDING'))
			OR (a.organisation_id IS NULL AND s.sandbox AND a.kind IN ('SANDBOX_WALLET', 'FUNDING')),
			FALSE)
		ORDER BY a.id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, kind string
		err := r.Scan(&id, &kind)
		return fmt.Sprintf("account %s (%s): not in its organisation's ledger scope", id, kind), err
	},
}

// transfersKeepCurrency: money changes currency only at the funding account.
var transfersKeepCurrency = check{
	query: `SELECT t.id, f.currency, a.currency FROM transfers t
		LEFT JOIN accounts f ON f.id = t.from_account_id
		JOIN accounts a ON a.id = t.to_account_id
		WHERE f.currency <> a.currency AND f.kind <> 'FUNDING' AND a.kind <> 'FUNDING'
		ORDER BY t.id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, from, to string
		err := r.Scan(&id, &from, &to)
		return fmt.Sprintf("transfer %s: moves %s into %s", id, from, to), err
	},
}

// balancesMatchTransfers: a stored balance is what its transfers add up to.
var balancesMatchTransfers = check{
	query: `SELECT id, CAST(SUM(stored) AS BIGINT), CAST(SUM(moved) AS BIGINT) FROM (
			SELECT id, balance AS stored, 0 AS moved FROM accounts
			UNION ALL SELECT to_account_id, 0, amount FROM transfers
			UNION ALL SELECT from_account_id, 0, -amount FROM transfers
		) x GROUP BY id HAVING SUM(stored) <> SUM(moved) ORDER BY id`,
	describe: disagree("account %s: balance %s, but its transfers net %s"),
}

// noNegativeBalances: the CHECK on accounts already refuses them; the
// audit says so too, should a constraint ever be dropped.
var noNegativeBalances = check{
	query: `SELECT id, kind, balance FROM accounts WHERE balance < 0 AND kind <> 'FUNDING' ORDER BY id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, kind string
		var balance disburse.Money
		err := r.Scan(&id, &kind, &balance)
		return fmt.Sprintf("account %s (%s): negative balance %s", id, kind, balance), err
	},
}

// legsMatchTransfers: every leg's transfers are those its status implies
// (docs/ledger.md); a leg CANCELLED without transfers is one whose batch
// was cancelled before it was submitted. Legs and transfers are put in one stream and grouped by
// leg, one sort however many payments; a group with no leg is a transfer
// for a leg that does not exist. The NULLs are typed because PostgreSQL
// types a chain of UNIONs pair by pair and cannot match an untyped NULL
// pair with a BIGINT.
var legsMatchTransfers = check{
	query: `SELECT payment_id, leg, status, leg_amount, n, holds, pays, settles, reverses, cancels, lo, hi FROM (
			SELECT payment_id, leg, MAX(status) AS status, MAX(leg_amount) AS leg_amount, MAX(submitted) AS submitted,
				COUNT(kind) AS n,
				COUNT(CASE WHEN kind = 'HOLD' THEN 1 END) AS holds,
				COUNT(CASE WHEN kind = 'PAY' THEN 1 END) AS pays,
				COUNT(CASE WHEN kind = 'SETTLE' THEN 1 END) AS settles,
				COUNT(CASE WHEN kind = 'REVERSE' THEN 1 END) AS reverses,
				COUNT(CASE WHEN kind = 'CANCEL' THEN 1 END) AS cancels,
				MIN(amount) AS lo, MAX(amount) AS hi
			FROM (
				SELECT id AS payment_id, 'PAYMENT' AS leg, status, amount AS leg_amount,
					CASE WHEN submitted_at IS NULL THEN 0 ELSE 1 END AS submitted,
					CAST(NULL AS TEXT) AS kind, CAST(NULL AS BIGINT) AS amount FROM payments
				UNION ALL
				SELECT id, 'REFERRAL', referral_status, referral_amount,
					CASE WHEN submitted_at IS NULL THEN 0 ELSE 1 END,
					CAST(NULL AS TEXT), CAST(NULL AS BIGINT) FROM payments WHERE referral_amount > 0
				UNION ALL
				SELECT payment_id, leg, CAST(NULL AS TEXT), CAST(NULL AS BIGINT), CAST(NULL AS INTEGER), kind, amount
					FROM transfers WHERE payment_id IS NOT NULL
			) x GROUP BY payment_id, leg
		) g
		WHERE status IS NULL OR NOT (
			(n = 0 AND (status IN ('DRAFT', 'DELETED') OR (status = 'CANCELLED' AND submitted = 0)))
			OR (n > 0 AND lo = leg_amount AND hi = leg_amount AND (
				(status = 'PENDING' AND n = 1 AND holds = 1)
				OR (status = 'SETTLED' AND ((n = 1 AND pays = 1) OR (n = 2 AND holds = 1 AND settles = 1)))
				OR (status = 'CANCELLED' AND n = 2 AND holds = 1 AND reverses + cancels = 1))))
		ORDER BY payment_id, leg`,
	describe: func(r *sql.Rows) (string, error) {
		var id, leg, status string
		var amount, lo, hi sql.NullInt64
		var counts [6]int64
		err := r.Scan(&id, &leg, opt(&status), &amount, &counts[0], &counts[1], &counts[2], &counts[3], &counts[4], &counts[5], &lo, &hi)
		if err != nil || !amount.Valid {
			return fmt.Sprintf("payment %s %s leg: transfers for a leg the payment does not have", id, leg), err
		}
		var kinds []string
		for i, k := range []disburse.TransferKind{disburse.TransferHold, disburse.TransferPay, disburse.TransferSettle, disburse.TransferReverse, disburse.TransferCancel} {
			if c := counts[i+1]; c > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
			}
		}
		moved := "no transfers"
		if counts[0] > 0 {
			moved = fmt.Sprintf("%s of %s to %s", strings.Join(kinds, ", "), disburse.Money(lo.Int64), disburse.Money(hi.Int64))
		}
		return fmt.Sprintf("payment %s %s leg: %s %s, but %s", id, leg, status, disburse.Money(amount.Int64), moved), nil
	},
}

// transfersGoWhereTheirKindSays: each transfer runs between the accounts
// its kind names for its leg (docs/ledger.md): a deposit from the funding
// account into a payout account; PAY and HOLD from the batch's payout
// account to the leg's payee's wallet (a live one, or for a sandbox the
// sandbox's own) or the organisation's holding account; SETTLE from that holding account to the payee's wallet;
// REVERSE and CANCEL from it back to the batch's payout account. The
// amounts and counts are legsMatchTransfers' to check; this one checks the
// accounts, which balances alone cannot: money sent to the wrong wallet
// still sums to zero. COALESCE turns a missing payment or account (a NULL
// comparison) into a problem rather than a pass: on PostgreSQL no foreign
// key stops a transfer naming either (migration 00002), so the audit does.
var transfersGoWhereTheirKindSays = check{
	query: `SELECT t.id, t.kind, COALESCE(f.kind, 'missing'), COALESCE(a.kind, 'missing') FROM transfers t
		LEFT JOIN accounts f ON f.id = t.from_account_id
		LEFT JOIN accounts a ON a.id = t.to_account_id
		LEFT JOIN payments p ON p.id = t.payment_id
		LEFT JOIN batches b ON b.id = p.batch_id
		LEFT JOIN organisations o ON o.id = b.organisation_id
		WHERE NOT COALESCE(
			(t.kind = 'DEPOSIT' AND t.payment_id IS NULL AND f.kind = 'FUNDING' AND a.kind = 'PAYOUT')
			OR (t.kind IN ('PAY', 'SETTLE')
				AND ((a.kind = 'WALLET' AND NOT o.sandbox) OR (a.kind = 'SANDBOX_WALLET' AND a.sandbox_organisation_id = o.id))
				AND a.msisdn = CASE t.leg WHEN 'PAYMENT' THEN p.msisdn ELSE p.referral_msisdn END
				AND f.id = CASE t.kind WHEN 'PAY' THEN b.account_id ELSE o.holding_account_id END)
			OR (t.kind = 'HOLD' AND f.id = b.account_id AND a.id = o.holding_account_id)
			OR (t.kind IN ('REVERSE', 'CANCEL') AND f.id = o.holding_account_id AND a.id = b.account_id),
			FALSE)
		ORDER BY t.id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, kind, from, to string
		err := r.Scan(&id, &kind, &from, &to)
		return fmt.Sprintf("%s transfer %s: from a %s account to a %s account, not the accounts its leg names", kind, id, from, to), err
	},
}

// paymentsBelongToTheirBatch: every payment names a batch that exists, of
// the payment's own organisation. On PostgreSQL no foreign key refuses
// another (migration 00004), and a payment outside every batch would be
// missed by summariesMatchPayments, which starts from the batches.
var paymentsBelongToTheirBatch = check{
	query: `SELECT p.id, p.batch_id FROM payments p
		LEFT JOIN batches b ON b.id = p.batch_id AND b.organisation_id = p.organisation_id
		WHERE b.id IS NULL
		ORDER BY p.id`,
	describe: func(r *sql.Rows) (string, error) {
		var id, batch string
		err := r.Scan(&id, &batch)
		return fmt.Sprintf("payment %s: batch %s does not exist in its organisation", id, batch), err
	},
}

// summaryAggregates computes each stored summary column from a batch's
// payments, in the order of disburse.Summary's fields (model.go defines them).
var summaryAggregates = []struct{ column, expr string }{
	{"payments_amount", "CASE WHEN status <> 'DELETED' THEN amount ELSE 0 END"},
	{"payments_count", "CASE WHEN status <> 'DELETED' THEN 1 ELSE 0 END"},
	{"referrals_amount", "CASE WHEN status <> 'DELETED' THEN referral_amount ELSE 0 END"},
	{"draft_amount", "CASE WHEN status = 'DRAFT' THEN amount ELSE 0 END"},
	{"draft_count", "CASE WHEN status = 'DRAFT' THEN 1 ELSE 0 END"},
	{"pending_amount", "CASE WHEN status = 'PENDING' THEN amount ELSE 0 END"},
	{"pending_count", "CASE WHEN status = 'PENDING' THEN 1 ELSE 0 END"},
	{"settled_amount", "CASE WHEN status = 'SETTLED' THEN amount ELSE 0 END"},
	{"settled_count", "CASE WHEN status = 'SETTLED' THEN 1 ELSE 0 END"},
	{"cancelled_amount", "CASE WHEN status = 'CANCELLED' THEN amount ELSE 0 END"},
	{"cancelled_count", "CASE WHEN status = 'CANCELLED' THEN 1 ELSE 0 END"},
	{"held_amount", "(CASE WHEN status = 'PENDING' THEN amount ELSE 0 END) + (CASE WHEN referral_status = 'PENDING' THEN referral_amount ELSE 0 END)"},
}

// summariesMatchPayments: each batch's stored summary is the aggregate of
// its payments.
var summariesMatchPayments = summaryCheck()

// summaryCheck builds summariesMatchPayments from summaryAggregates.
func summaryCheck() check {
	var sums, stored, computed, differs []string
	for _, a := range summaryAggregates {
		sums = append(sums, fmt.Sprintf("SUM(%s) AS %s", a.expr, a.column))
		stored = append(stored, "b."+a.column)
		computed = append(computed, fmt.Sprintf("CAST(COALESCE(p.%s, 0) AS BIGINT)", a.column))
		differs = append(differs, fmt.Sprintf("b.%s <> COALESCE(p.%s, 0)", a.column, a.column))
	}
	return check{
		query: `SELECT b.id, ` + strings.Join(stored, ", ") + `, ` + strings.Join(computed, ", ") + `
			FROM batches b
			LEFT JOIN (SELECT batch_id, ` + strings.Join(sums, ", ") + ` FROM payments GROUP BY batch_id) p ON p.batch_id = b.id
			WHERE ` + strings.Join(differs, " OR ") + `
			ORDER BY b.id`,
		describe: func(r *sql.Rows) (string, error) {
			var id string
			var stored, computed disburse.Summary
			dest := append(append([]any{&id}, summaryFields(&stored)...), summaryFields(&computed)...)
			if err := r.Scan(dest...); err != nil {
				return "", err
			}
			return fmt.Sprintf("batch %s: stored summary differs from its payments: %s", id, summaryDiff(stored, computed)), nil
		},
	}
}

// summaryDiff names the fields where stored and computed differ.
func summaryDiff(stored, computed disburse.Summary) string {
	s, c := reflect.ValueOf(stored), reflect.ValueOf(computed)
	var diffs []string
	for i := range s.NumField() {
		if s.Field(i).Int() != c.Field(i).Int() {
			diffs = append(diffs, fmt.Sprintf("%s %d, payments say %d", s.Type().Field(i).Name, s.Field(i).Int(), c.Field(i).Int()))
		}
	}
	return strings.Join(diffs, "; ")
}

// holdingMatchesBatches: an organisation's holding account holds exactly
// its batches' pending legs, so the HOLD, SETTLE, REVERSE and CANCEL
// transfers went to and from the right account.
var holdingMatchesBatches = check{
	query: `SELECT a.id, a.balance, CAST(COALESCE(h.held, 0) AS BIGINT) FROM accounts a
		LEFT JOIN (SELECT organisation_id, SUM(held_amount) AS held FROM batches GROUP BY organisation_id) h
			ON h.organisation_id = a.organisation_id
		WHERE a.kind = 'HOLDING' AND a.balance <> COALESCE(h.held, 0)
		ORDER BY a.id`,
	describe: disagree("holding account %s: balance %s, but its organisation's batches hold %s"),
}
