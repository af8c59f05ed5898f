package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

func (t *tx) InsertMemberCheck(ctx context.Context, batchID string, at time.Time) error {
	return t.insert(ctx, "member check", `INSERT INTO member_checks (batch_id, created_at) VALUES (?, ?)`, batchID, micros(at))
}

// ClaimMemberCheck takes the oldest queued batch that no other transaction
// holds (SKIP LOCKED where the engine locks rows).
func (t *tx) ClaimMemberCheck(ctx context.Context) (string, error) {
	var id string
	err := t.queryRow(ctx, `SELECT batch_id FROM member_checks ORDER BY created_at, batch_id LIMIT 1`+t.e.LockClause(true)).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("member check: %w", disburse.ErrNotFound)
	}
	return id, err
}

func (t *tx) DeleteMemberCheck(ctx context.Context, batchID string) error {
	_, err := t.exec(ctx, `DELETE FROM member_checks WHERE batch_id = ?`, batchID)
	return err
}

// LockLegsPendingToMembers reads the batch's pending legs by the batch's
// index and keeps those whose payee (or referral payee) is a member.
func (t *tx) LockLegsPendingToMembers(ctx context.Context, batchID string, limit int) ([]disburse.Payment, error) {
	return list(ctx, t, "legs pending to members", scanRowPayment, `SELECT `+paymentColumns+` FROM payments p
		WHERE p.batch_id = ? AND (
			(p.held AND p.status = 'PENDING' AND EXISTS (SELECT 1 FROM members m WHERE m.msisdn = p.msisdn)) OR
			(p.referral_held AND p.referral_status = 'PENDING' AND EXISTS (SELECT 1 FROM members m WHERE m.msisdn = p.referral_msisdn)))
		ORDER BY p.seq LIMIT ?`+t.e.LockClause(false), batchID, limit)
}
