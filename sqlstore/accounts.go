package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"github.com/disburse/disburse"
)

const accountColumns = `a.id, a.organisation_id, a.kind, a.name, a.currency, a.balance, a.is_default, a.msisdn, a.created_at,
	a.sandbox_organisation_id`

func scanAccount(r scanner, extra ...any) (disburse.Account, error) {
	var a disburse.Account
	dest := append([]any{&a.ID, opt(&a.OrganisationID), &a.Kind, &a.Name, &a.Currency, &a.Balance, &a.IsDefault, &a.Msisdn, at(&a.CreatedAt), opt(&a.Scope)}, extra...)
	return a, r.Scan(dest...)
}

func (t *tx) InsertAccount(ctx context.Context, a disburse.Account) error {
	return t.insert(ctx, "account",
		`INSERT INTO accounts (id, organisation_id, kind, name, currency, balance, is_default, msisdn, created_at, sandbox_organisation_id)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		a.ID, nullID(a.OrganisationID), string(a.Kind), a.Name, a.Currency, int64(a.Balance), a.IsDefault, a.Msisdn, micros(a.CreatedAt),
		nullID(a.Scope))
}

func (t *tx) Account(ctx context.Context, id string) (disburse.Account, error) {
	return t.account(ctx, id, "")
}

func (t *tx) LockAccount(ctx context.Context, id string) (disburse.Account, error) {
	return t.account(ctx, id, t.e.LockClause(false))
}

func (t *tx) account(ctx context.Context, id, lock string) (disburse.Account, error) {
	a, err := scanAccount(t.queryRow(ctx, `SELECT `+accountColumns+` FROM accounts a WHERE a.id = ?`+lock, id))
	return a, found("account", err)
}

func (t *tx) PayoutAccounts(ctx context.Context, organisationID string) ([]disburse.Account, error) {
	return list(ctx, t, "payout accounts", scanPayoutAccount, payoutAccountsQuery, organisationID)
}

// PayoutAccountID reads the account's id alone, by its primary key or the
// organisation's accounts' index (accounts_organisation): no lock, as
// PayoutAccounts took none, and no sum over the account's batches.
func (t *tx) PayoutAccountID(ctx context.Context, organisationID, accountID string) (string, error) {
	query, args := defaultPayoutAccountQuery, []any{organisationID}
	if accountID != "" {
		query, args = payoutAccountQuery, []any{accountID, organisationID}
	}
	var id string
	err := t.queryRow(ctx, query, args...).Scan(&id)
	return id, found("payout account", err)
}

// The statements of PayoutAccountID; bench/pgbench/small_write_floor.sql
// runs the first, as POST /batches without an accountId does. An
// organisation has one default payout account; were there two, the
// newest would be taken, as the loop over PayoutAccounts did.
const (
	defaultPayoutAccountQuery = `SELECT a.id FROM accounts a WHERE a.organisation_id = ? AND a.kind = 'PAYOUT' AND a.is_default
	ORDER BY a.created_at DESC, a.id DESC LIMIT 1`
	payoutAccountQuery = `SELECT a.id FROM accounts a WHERE a.id = ? AND a.organisation_id = ? AND a.kind = 'PAYOUT'`
)

// PayoutAccounts is Tx.PayoutAccounts as one statement on the read pool,
// outside any transaction (lookup.go): GET /accounts in one round trip.
func (s *Store) PayoutAccounts(ctx context.Context, organisationID string) ([]disburse.Account, error) {
	var accounts []disburse.Account
	err := s.retrying(ctx, func() error {
		rows, err := s.lookupRows(ctx, payoutAccountsQuery, organisationID)
		if err == nil {
			accounts, err = collect("payout accounts", rows, nil, scanPayoutAccount)
		}
		return err
	})
	return accounts, err
}

// payoutAccountsQuery reads an organisation's payout accounts, oldest
// first, each with its HeldBalance: what the holding account holds for
// this account's pending legs, which is what its batches' stored
// summaries hold.
const payoutAccountsQuery = `SELECT ` + accountColumns + `,
	(SELECT CAST(COALESCE(SUM(b.held_amount), 0) AS BIGINT) FROM batches b WHERE b.account_id = a.id)
	FROM accounts a WHERE a.organisation_id = ? AND a.kind = 'PAYOUT'
	ORDER BY a.created_at, a.id`

func scanPayoutAccount(r *sql.Rows) (disburse.Account, error) {
	var held int64
	a, err := scanAccount(r, &held)
	a.HeldBalance = disburse.Money(held)
	return a, err
}

func (t *tx) Wallets(ctx context.Context, msisdn string) ([]disburse.Account, error) {
	return list(ctx, t, "wallets", scanRowAccount,
		`SELECT `+accountColumns+` FROM accounts a WHERE a.kind = 'WALLET' AND a.msisdn = ? ORDER BY a.created_at, a.id`, msisdn)
}

func scanRowAccount(r *sql.Rows) (disburse.Account, error) { return scanAccount(r) }

func (t *tx) EnsureWallets(ctx context.Context, currency string, msisdns []string, now time.Time) (map[string]string, error) {
	// WHERE true: SQLite needs it to tell ON CONFLICT from a join
	// constraint. The casts type the parameters for PostgreSQL, which does
	// not infer them from the columns of an INSERT ... SELECT.
	return t.ensureWallets(ctx, "ensure wallets", msisdns, walletStatements{
		insert: `INSERT INTO accounts (id, kind, name, currency, balance, is_default, msisdn, created_at)
		SELECT r.id, 'WALLET', r.msisdn, CAST(? AS TEXT), 0, FALSE, r.msisdn, CAST(? AS BIGINT) FROM @rows AS r WHERE true
		ON CONFLICT (msisdn, currency) WHERE kind = 'WALLET' DO NOTHING RETURNING msisdn, id`,
		insertArgs: []any{currency, micros(now)},
		read:       `SELECT msisdn, id FROM accounts WHERE kind = 'WALLET' AND currency = ? AND `, readArgs: []any{currency},
	})
}

// walletStatements ensure wallets of one kind: insert, of rows of an id,
// an msisdn and the extra columns, those missing, returning (msisdn, id)
// of each it made; read (msisdn, id) of those there already, its
// condition on msisdn appended.
type walletStatements struct {
	insert, read         string
	insertArgs, readArgs []any
	extra                []Column
}

// ensureWallets runs st for msisdns and returns each one's wallet id. The
// wallets it creates come back at once (a registration's payees have
// none); only those that were there already are read after.
func (t *tx) ensureWallets(ctx context.Context, what string, msisdns []string, st walletStatements) (map[string]string, error) {
	msisdns = distinct(msisdns)
	ids := make([]string, len(msisdns))
	for i := range ids {
		ids[i] = disburse.NewID()
	}
	cols := append([]Column{
		IDCol("id", func(i int) string { return ids[i] }),
		TextCol("msisdn", func(i int) string { return msisdns[i] }),
	}, st.extra...)
	wallets := make(map[string]string, len(msisdns))
	scan := func(r Rows) error {
		var msisdn, id string
		err := r.Scan(&msisdn, &id)
		wallets[msisdn] = id
		return err
	}
	// Inside Together it goes with the writes held before it (tx.later).
	if err := t.bulkLater(ctx, st.insert, st.insertArgs, len(msisdns), cols, scan,
		func(_ int64, err error) error { return err }); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	existing := slices.DeleteFunc(slices.Clone(msisdns), func(m string) bool { _, ok := wallets[m]; return ok })
	if len(existing) == 0 {
		return wallets, nil
	}
	// Read back by AnyOf rather than a join to the rows, whose plan on
	// PostgreSQL depends on statistics it may not have.
	cond, arg := t.e.AnyOf("msisdn", existing)
	rows, err := t.query(ctx, st.read+cond, append(slices.Clone(st.readArgs), arg)...)
	if err == nil {
		err = forEach(rows, func(r *sql.Rows) error { return scan(r) })
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return wallets, nil
}

// distinct returns ss without repeats, in first-seen order.
func distinct(ss []string) []string {
	seen := make(map[string]bool, len(ss))
	out := make([]string, 0, len(ss))
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}
