package disburse

import (
	"context"
	"time"
)

// IdempotencyTx is what a transaction does with Idempotency-Keys
// (docs/idempotency.md). Tx embeds it.
type IdempotencyTx interface {
	// InsertIdempotencyKey claims a key: ErrDuplicate when its scope holds it already.
	InsertIdempotencyKey(ctx context.Context, k IdempotencyKey) error
	// LockIdempotencyKey returns, locked, the key of scope with hash keyHash.
	LockIdempotencyKey(ctx context.Context, scope, keyHash string) (IdempotencyKey, error)
	// TakeOverIdempotencyKey gives a key that is not done to another owner:
	// its previous owner's request died before its work committed.
	TakeOverIdempotencyKey(ctx context.Context, scope, keyHash, owner string, leaseUntil time.Time) error
	// DeleteIdempotencyKey forgets a key: one past its retention, before
	// the same key is claimed again.
	DeleteIdempotencyKey(ctx context.Context, scope, keyHash string) error
	// MarkIdempotencyKeyDone records, in the transaction of the work, that
	// the work committed, with what a replay rebuilds its answer from.
	// ErrNotFound when owner no longer holds the key.
	MarkIdempotencyKeyDone(ctx context.Context, scope, keyHash, owner, refKind, refID string) error
	// AnswerIdempotencyKey keeps the answer of the owner's request.
	// ErrNotFound when owner no longer holds the key.
	AnswerIdempotencyKey(ctx context.Context, scope, keyHash, owner string, status int, answer []byte, leaseUntil time.Time) error
	// ReleaseIdempotencyKey lets the key run again: its owner's request
	// failed with a 5xx before its work committed. A key whose work
	// committed is kept, with its lease ended so that a retry replays it.
	ReleaseIdempotencyKey(ctx context.Context, scope, keyHash, owner string, now time.Time) error
	// DeleteIdempotencyKeysBefore deletes up to limit keys created before
	// cutoff and returns how many it deleted.
	DeleteIdempotencyKeysBefore(ctx context.Context, cutoff time.Time, limit int) (int, error)
}

// IdempotencyKey is a stored Idempotency-Key: who holds it, for which
// request, and its answer once there is one.
type IdempotencyKey struct {
	Scope   string // an organisation id, or OperatorScope
	KeyHash string // SHA-256 of the key, hex; the key itself is not kept
	// Fingerprint is the hash of the request's method, path, scope and body.
	Fingerprint string
	Owner       string    // the request that holds the claim
	Done        bool      // its work committed
	LeaseUntil  time.Time // in flight until then, unless answered
	Status      int       // the answer's status; 0 while none is kept
	Answer      []byte    // the answer's headers and body, sealed
	// RefKind and RefID name what a replay rebuilds the answer from, for
	// answers too large to keep (a submit's).
	RefKind, RefID string
	CreatedAt      time.Time
}
