package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/disburse/disburse"
)

func (t *tx) InsertTransfers(ctx context.Context, ts []disburse.Transfer) error {
	if err := t.InsertTransferRows(ctx, ts, AllReady(len(ts))); err != nil {
		return err
	}
	changes := make(disburse.BalanceChanges)
	changes.Add(ts)
	return t.ApplyBalances(ctx, changes)
}

func (t *tx) InsertTransferRows(ctx context.Context, ts []disburse.Transfer, ready func() (int, error)) error {
	if len(ts) == 0 {
		return nil
	}
	cols := []Column{
		IDCol("id", func(i int) string { return ts[i].ID }),
		IDCol("from_account_id", func(i int) string { return ts[i].FromAccountID }),
		IDCol("to_account_id", func(i int) string { return ts[i].ToAccountID }),
		IntCol("amount", func(i int) int64 { return int64(ts[i].Amount) }),
		TextCol("kind", func(i int) string { return string(ts[i].Kind) }),
		IDCol("payment_id", func(i int) string { return ts[i].PaymentID }),
		OptTextCol("leg", func(i int) string { return string(ts[i].Leg) }),
		TextCol("reference", func(i int) string { return ts[i].Reference }),
		TimeCol("created_at", func(i int) time.Time { return ts[i].CreatedAt }),
	}
	return t.insertRowsAsReady(ctx, "transfers", cols, len(ts), ready)
}

// ApplyBalances updates every touched account once, in one statement,
// however many transfers touch it (a payout account at submit: one per
// payment).
func (t *tx) ApplyBalances(ctx context.Context, changes disburse.BalanceChanges) error {
	ids := make([]string, 0, len(changes))
	for id, d := range changes {
		if d != 0 {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids)
	if err := t.lockAccounts(ctx, ids); err != nil {
		return err
	}
	cols := []Column{
		IDCol("id", func(i int) string { return ids[i] }),
		IntCol("delta", func(i int) int64 { return int64(changes[ids[i]]) }),
	}
	return t.bulkLater(ctx, `UPDATE accounts SET balance = accounts.balance + r.delta
		FROM @rows AS r WHERE accounts.id = r.id`, nil, len(ids), cols, nil, func(_ int64, err error) error {
		if err == nil {
			return nil
		}
		if t.e.Violation(err) == CheckViolation {
			// The only CHECK an UPDATE of balance can break.
			err = ErrNegativeBalance
		}
		return fmt.Errorf("apply transfers to balances: %w", err)
	})
}

// lockAccounts locks the accounts ids names in the accounts' lock order,
// where the engine locks rows (docs/ledger.md, "Lock order"): payout
// accounts, then holding accounts, then wallets, then the funding account,
// each kind in ascending id order. An UPDATE … FROM locks its rows in the
// order its plan visits them, which follows the table's layout, and two
// transactions that share accounts would take them in different orders and
// deadlock. Payout accounts come first because a submit and a deposit lock
// theirs on its own before anything else, to check and change its balance.
func (t *tx) lockAccounts(ctx context.Context, ids []string) error {
	lock := t.e.LockClause(false)
	if lock == "" {
		return nil
	}
	// Run as an exec, its rows unread: inside Together it is held and sent
	// with the update that follows it, still before it.
	return t.bulkLater(ctx, `SELECT a.id FROM accounts a WHERE a.id IN (SELECT r.id FROM @rows AS r)
		ORDER BY CASE a.kind WHEN 'PAYOUT' THEN 0 WHEN 'HOLDING' THEN 1 WHEN 'WALLET' THEN 2 ELSE 3 END, a.id`+lock,
		nil, len(ids), []Column{IDCol("id", func(i int) string { return ids[i] })}, nil, named("lock accounts"))
}

// StatementEntries reads transfers into the member's wallet; only PAY and
// SETTLE go there (the ledger audit holds every transfer to it), and the
// condition lets both engines use the partial index on them.
func (t *tx) StatementEntries(ctx context.Context, msisdn string) ([]disburse.StatementEntry, error) {
	return list(ctx, t, "statement", func(r *sql.Rows) (disburse.StatementEntry, error) {
		var e disburse.StatementEntry
		err := r.Scan(&e.PaymentID, &e.Leg, &e.OrganisationName, &e.Amount, &e.Currency, at(&e.SettledAt))
		return e, err
	}, `SELECT t.payment_id, t.leg, o.name, t.amount, a.currency, t.created_at
		FROM accounts a
		JOIN transfers t ON t.to_account_id = a.id
		JOIN payments p ON p.id = t.payment_id
		JOIN organisations o ON o.id = p.organisation_id
		WHERE a.kind = 'WALLET' AND a.msisdn = ? AND t.kind IN ('PAY', 'SETTLE')
		ORDER BY t.created_at, t.id`, msisdn)
}
