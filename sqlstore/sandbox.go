package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

// The sandbox's tables and accounts (migration 00023). The live members,
// wallets and legs keep their own statements (members.go, accounts.go,
// payments.go, member_checks.go): these run only for a sandbox
// organisation's work.

func (t *tx) InsertSandboxMember(ctx context.Context, m disburse.SandboxMember) (bool, error) {
	res, err := t.exec(ctx, `INSERT INTO sandbox_members (organisation_id, msisdn, registered_at) VALUES (?, ?, ?)
		ON CONFLICT (organisation_id, msisdn) DO NOTHING`, m.OrganisationID, m.Msisdn, micros(m.RegisteredAt))
	if err != nil {
		return false, fmt.Errorf("insert sandbox member: %w", err)
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

func (t *tx) SandboxMember(ctx context.Context, organisationID, msisdn string) (disburse.SandboxMember, error) {
	m := disburse.SandboxMember{OrganisationID: organisationID, Msisdn: msisdn}
	err := t.queryRow(ctx, `SELECT registered_at FROM sandbox_members WHERE organisation_id = ? AND msisdn = ?`,
		organisationID, msisdn).Scan(at(&m.RegisteredAt))
	return m, found("sandbox member", err)
}

func (t *tx) SandboxMembers(ctx context.Context, organisationID string, msisdns []string) (map[string]disburse.Member, error) {
	msisdns = distinct(msisdns)
	out := make(map[string]disburse.Member, len(msisdns))
	_, err := t.bulk(ctx, `SELECT m.msisdn, m.registered_at FROM @rows AS r CROSS JOIN sandbox_members m
		WHERE m.organisation_id = ? AND m.msisdn = r.msisdn`, []any{organisationID}, len(msisdns),
		[]Column{TextCol("msisdn", func(i int) string { return msisdns[i] })},
		func(r *sql.Rows) error {
			var m disburse.Member
			err := r.Scan(&m.Msisdn, at(&m.RegisteredAt))
			out[m.Msisdn] = m
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("sandbox members: %w", err)
	}
	return out, nil
}

// EnsureSandboxWallets is EnsureWallets (accounts.go) on the sandbox's
// own unique index.
func (t *tx) EnsureSandboxWallets(ctx context.Context, organisationID, currency string, msisdns []string, now time.Time) (map[string]string, error) {
	return t.ensureWallets(ctx, "ensure sandbox wallets", msisdns, walletStatements{
		insert: `INSERT INTO accounts (id, kind, name, currency, balance, is_default, msisdn, created_at, sandbox_organisation_id)
		SELECT r.id, 'SANDBOX_WALLET', r.msisdn, CAST(? AS TEXT), 0, FALSE, r.msisdn, CAST(? AS BIGINT), r.scope FROM @rows AS r WHERE true
		ON CONFLICT (sandbox_organisation_id, msisdn) WHERE kind = 'SANDBOX_WALLET' DO NOTHING RETURNING msisdn, id`,
		insertArgs: []any{currency, micros(now)},
		read:       `SELECT msisdn, id FROM accounts WHERE kind = 'SANDBOX_WALLET' AND sandbox_organisation_id = ? AND `,
		readArgs:   []any{organisationID},
		extra:      []Column{IDCol("scope", func(int) string { return organisationID })},
	})
}

func (t *tx) SandboxFundingAccountID(ctx context.Context, organisationID string) (string, error) {
	var id string
	err := t.queryRow(ctx, `SELECT id FROM accounts WHERE kind = 'FUNDING' AND sandbox_organisation_id = ?`, organisationID).Scan(&id)
	return id, found("sandbox funding account", err)
}

func (t *tx) LockSandboxLegsTo(ctx context.Context, organisationID, msisdn string) ([]disburse.Payment, error) {
	return list(ctx, t, "sandbox pending legs", scanRowPayment, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.id IN (
			SELECT id FROM payments WHERE msisdn = ? AND held AND status = 'PENDING' AND organisation_id = ?
			UNION
			SELECT id FROM payments WHERE referral_msisdn = ? AND referral_held AND referral_status = 'PENDING' AND organisation_id = ?)
		ORDER BY p.seq`+t.e.LockClause(false), msisdn, organisationID, msisdn, organisationID)
}

func (t *tx) LockLegsPendingToSandboxMembers(ctx context.Context, batchID string, limit int) ([]disburse.Payment, error) {
	return list(ctx, t, "legs pending to sandbox members", scanRowPayment, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.batch_id = ? AND (
			(p.held AND p.status = 'PENDING' AND EXISTS (SELECT 1 FROM sandbox_members m
				WHERE m.organisation_id = p.organisation_id AND m.msisdn = p.msisdn)) OR
			(p.referral_held AND p.referral_status = 'PENDING' AND EXISTS (SELECT 1 FROM sandbox_members m
				WHERE m.organisation_id = p.organisation_id AND m.msisdn = p.referral_msisdn)))
		ORDER BY p.seq LIMIT ?`+t.e.LockClause(false), batchID, limit)
}
