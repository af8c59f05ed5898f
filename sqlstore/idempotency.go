package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// The Idempotency-Keys (idempotency.Tx, and the two marks of disburse.Tx
// made inside the work; migration 00012).

// Idempotency returns the store of the Idempotency-Keys, on s's database:
// whoever opened s hands it to idempotency.New, so that the keys' own
// transactions and the money's marks reach the same rows.
func (s *Store) Idempotency() idempotency.Store { return keyStore{s} }

// keyStore is the idempotency.Store of a Store.
type keyStore struct{ s *Store }

// Write runs fn in a write transaction, retried as Store.Write retries.
func (k keyStore) Write(ctx context.Context, fn func(idempotency.Tx) error) error {
	return k.s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

var _ idempotency.Tx = (*tx)(nil)

func (t *tx) InsertIdempotencyKey(ctx context.Context, k idempotency.Key) error {
	return t.insert(ctx, "idempotency key", `INSERT INTO idempotency_keys
		(scope, key_hash, fingerprint, owner, done, lease_until, status, ref_kind, ref_id, created_at)
		VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
		k.Scope, k.KeyHash, k.Fingerprint, k.Owner, k.Done, micros(k.LeaseUntil), k.RefKind, k.RefID, micros(k.CreatedAt))
}

func (t *tx) LockIdempotencyKey(ctx context.Context, scope, keyHash string) (idempotency.Key, error) {
	k := idempotency.Key{Scope: scope, KeyHash: keyHash}
	err := t.queryRow(ctx, `SELECT fingerprint, owner, done, lease_until, status, answer, ref_kind, ref_id, created_at
		FROM idempotency_keys WHERE scope = ? AND key_hash = ?`+t.e.LockClause(false), scope, keyHash).
		Scan(&k.Fingerprint, &k.Owner, &k.Done, at(&k.LeaseUntil), &k.Status, &k.Answer, &k.RefKind, &k.RefID, at(&k.CreatedAt))
	return k, found("idempotency key", err)
}

func (t *tx) TakeOverIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, leaseUntil time.Time) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET owner = ?, lease_until = ?
		WHERE scope = ? AND key_hash = ? AND NOT done`, h.Owner, micros(leaseUntil), h.Scope, h.KeyHash)
}

// RenewIdempotencyKeys updates the holds' rows in one statement, by
// primary key; rows another transaction has locked are skipped where the
// engine has row locks (the work's mark holds one until it commits).
func (t *tx) RenewIdempotencyKeys(ctx context.Context, holds []disburse.IdempotencyHold, leaseUntil time.Time) error {
	if len(holds) == 0 {
		return nil
	}
	args := []any{micros(leaseUntil)}
	match := make([]string, len(holds))
	for i, h := range holds {
		match[i] = "(scope = ? AND key_hash = ? AND owner = ?)"
		args = append(args, h.Scope, h.KeyHash, h.Owner)
	}
	_, err := t.exec(ctx, `UPDATE idempotency_keys SET lease_until = ? WHERE (scope, key_hash) IN
		(SELECT scope, key_hash FROM idempotency_keys WHERE `+strings.Join(match, " OR ")+t.e.LockClause(true)+`)`, args...)
	if err != nil {
		return fmt.Errorf("renew idempotency keys: %w", err)
	}
	return nil
}

func (t *tx) DeleteIdempotencyKey(ctx context.Context, scope, keyHash string) error {
	_, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key_hash = ?`, scope, keyHash)
	return err
}

func (t *tx) MarkIdempotencyKeyDone(ctx context.Context, h disburse.IdempotencyHold, refKind, refID string) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET done = ?, ref_kind = ?, ref_id = ?
		WHERE scope = ? AND key_hash = ? AND owner = ?`, true, refKind, refID, h.Scope, h.KeyHash, h.Owner)
}

func (t *tx) AnswerIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, status int, answer []byte, leaseUntil time.Time) error {
	return t.update(ctx, "idempotency key", `UPDATE idempotency_keys SET status = ?, answer = ?, lease_until = ?
		WHERE scope = ? AND key_hash = ? AND owner = ?`, status, answer, micros(leaseUntil), h.Scope, h.KeyHash, h.Owner)
}

// ReleaseIdempotencyKey deletes the key when its work did not commit and
// otherwise ends its lease; either way the row is the owner's or untouched.
func (t *tx) ReleaseIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, now time.Time) error {
	if _, err := t.exec(ctx, `DELETE FROM idempotency_keys WHERE scope = ? AND key_hash = ? AND owner = ? AND NOT done`,
		h.Scope, h.KeyHash, h.Owner); err != nil {
		return fmt.Errorf("release idempotency key: %w", err)
	}
	_, err := t.exec(ctx, `UPDATE idempotency_keys SET lease_until = ? WHERE scope = ? AND key_hash = ? AND owner = ? AND done`,
		micros(now), h.Scope, h.KeyHash, h.Owner)
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
