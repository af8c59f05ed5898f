package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

// The Idempotency-Keys (disburse.IdempotencyTx, migration 00012).

func (t *tx) InsertIdempotencyKey(ctx context.Context, k disburse.IdempotencyKey) error {
	return t.insert(ctx, "idempotency key", `INSERT INTO idempotency_keys
		(scope, key_hash, fingerprint, owner, done, lease_until, status, ref_kind, ref_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
		k.Scope, k.KeyHash, k.Fingerprint, k.Owner, k.Done, micros(k.LeaseUntil), k.RefKind, k.RefID, micros(k.CreatedAt))
}

func (t *tx) LockIdempotencyKey(ctx context.Context, scope, keyHash string) (disburse.IdempotencyKey, error) {
	k := disburse.IdempotencyKey{Scope: scope, KeyHash: keyHash}
	err := t.queryRow(ctx, `SELECT fingerprint, owner, done, lease_until, status, answer, ref_kind, ref_id, created_at
		FROM idempotency_keys WHERE scope = ? AND key_hash = ?`+t.e.LockClause(false), scope, keyHash).
		Scan(&k.Fingerprint, &k.Owner, &k.Done, at(&k.LeaseUntil), &k.Status, &k.Answer, &k.RefKind, &k.RefID, at(&k.CreatedAt))
	return k, found("idempotency key", err)
}

func (t *tx) TakeOverIdempotencyKey(ctx context.Context, scope, keyHash, owner string, leaseUntil time.Time) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET owner = ?, lease_until = ?
		WHERE scope = ? AND key_hash = ? AND NOT done`, owner, micros(leaseUntil), scope, keyHash)
}

func (t *tx) DeleteIdempotencyKey(ctx context.Context, scope, keyHash string) error {
	_, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key_hash = ?`, scope, keyHash)
	return err
}

func (t *tx) MarkIdempotencyKeyDone(ctx context.Context, scope, keyHash, owner, refKind, refID string) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET done = ?, ref_kind = ?, ref_id = ?
		WHERE scope = ? AND key_hash = ? AND owner = ?`, true, refKind, refID, scope, keyHash, owner)
}

func (t *tx) AnswerIdempotencyKey(ctx context.Context, scope, keyHash, owner string, status int, answer []byte, leaseUntil time.Time) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET status = ?, answer = ?, lease_until = ?
		WHERE scope = ? AND key_hash = ? AND owner = ?`, status, answer, micros(leaseUntil), scope, keyHash, owner)
}

// ReleaseIdempotencyKey deletes the key when its work did not commit and
// otherwise ends its lease; either way the row is the owner's or untouched.
func (t *tx) ReleaseIdempotencyKey(ctx context.Context, scope, keyHash, owner string, now time.Time) error {
	if _, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key_hash = ? AND owner = ? AND NOT done`,
		scope, keyHash, owner); err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	_, err := t.exec(ctx, `UPDATE idempotency_keys SET lease_until = ? WHERE scope = ? AND key_hash = ? AND owner = ? AND done`,
		micros(now), scope, keyHash, owner)
	return err
}

func (t *tx) DeleteIdempotencyKeysBefore(ctx context.Context, cutoff time.Time, limit int) (int, error) {
	res, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE (scope, key_hash) IN
		(SELECT scope, key_hash FROM idempotency_keys WHERE created_at < ? LIMIT ?)`, micros(cutoff), limit)
	if err != nil {
		return 0, fmt.Errorf("delete idempotency keys: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
