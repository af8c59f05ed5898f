package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
)

// The operator tokens (migration 00019) and the operator's reads
// (operators.Tx); the audit log's read is in audit.go.

var _ operators.Store = (*Store)(nil)
var _ operators.Tx = (*tx)(nil)

// WriteOperators runs fn in a write transaction, as Write does.
func (s *Store) WriteOperators(ctx context.Context, fn func(operators.Tx) error) error {
	return s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

// ReadOperators runs fn in a read-only transaction, as Read does.
func (s *Store) ReadOperators(ctx context.Context, fn func(operators.Tx) error) error {
	return s.readTx(ctx, func(t *tx) error { return fn(t) })
}

const operatorTokenColumns = `id, name, hash, created_at, last_used_at, revoked_at`

func (t *tx) InsertOperatorToken(ctx context.Context, o operators.Token) error {
	return t.insert(ctx, "operator token", `INSERT INTO operator_tokens (`+operatorTokenColumns+`) VALUES (?, ?, ?, ?, ?, ?)`,
		o.ID, o.Name, o.Hash, micros(o.CreatedAt), micros(o.LastUsedAt), micros(o.RevokedAt))
}

func scanOperatorToken(r scanner) (operators.Token, error) {
	var o operators.Token
	return o, r.Scan(&o.ID, &o.Name, &o.Hash, at(&o.CreatedAt), at(&o.LastUsedAt), at(&o.RevokedAt))
}

// LiveOperatorToken reads by name or by hash; column is the caller's
// constant, never input.
func (t *tx) LiveOperatorToken(ctx context.Context, column, value string) (operators.Token, error) {
	if column != "name" && column != "hash" {
		return operators.Token{}, fmt.Errorf("operator tokens are read by name or hash, not %q", column)
	}
	o, err := scanOperatorToken(t.queryRow(ctx, `SELECT `+operatorTokenColumns+` FROM operator_tokens
		WHERE `+column+` = ? AND revoked_at IS NULL`, value))
	return o, found("operator token", err)
}

func (t *tx) OperatorTokens(ctx context.Context) ([]operators.Token, error) {
	return list(ctx, t, "operator tokens", func(r *sql.Rows) (operators.Token, error) { return scanOperatorToken(r) },
		`SELECT `+operatorTokenColumns+` FROM operator_tokens WHERE revoked_at IS NULL ORDER BY name`)
}

func (t *tx) RevokeOperatorToken(ctx context.Context, id string, at time.Time) error {
	return t.update(ctx, "operator token", `UPDATE operator_tokens SET revoked_at = ? WHERE id = ?`, micros(at), id)
}

func (t *tx) TouchOperatorToken(ctx context.Context, id string, at time.Time) error {
	return t.update(ctx, "operator token", `UPDATE operator_tokens SET last_used_at = ? WHERE id = ?`, micros(at), id)
}

// OrganisationsPage pages by (created_at, id), by the index of migration 00019.
func (t *tx) OrganisationsPage(ctx context.Context, after string, limit int) ([]disburse.Organisation, error) {
	query, args := `SELECT `+organisationColumns+` FROM organisations`, []any{}
	if after != "" {
		if _, err := t.Organisation(ctx, after); err != nil {
			return nil, err
		}
		query, args = query+` WHERE (created_at, id) < (SELECT a.created_at, a.id FROM organisations a WHERE a.id = ?)`, append(args, after)
	}
	return list(ctx, t, "organisations", func(r *sql.Rows) (disburse.Organisation, error) { return scanOrganisation(r) },
		query+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit)...)
}
