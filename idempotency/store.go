package idempotency

import (
	"context"
	"time"

	"github.com/disburse/disburse"
)

// Store is the port of the keys' own short transactions: the claim before
// the work and the answer after it. The SQL store hands one over
// (sqlstore.Store.Idempotency) on the database of the money, whose
// transactions carry the marks made inside the work (disburse.Tx's
// MarkIdempotencyKeyDone and AnswerIdempotencyKey).
type Store interface {
	// Write runs fn in one write transaction and commits when fn returns
	// nil, retrying it as disburse.Store.Write does.
	Write(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a transaction of Store does with Idempotency-Keys
// (docs/idempotency.md).
type Tx interface {
	// InsertIdempotencyKey claims a key: disburse.ErrDuplicate when its scope holds it already.
	InsertIdempotencyKey(ctx context.Context, k Key) error
	// LockIdempotencyKey returns, locked, the key of scope with hash keyHash.
	LockIdempotencyKey(ctx context.Context, scope, keyHash string) (Key, error)
	// TakeOverIdempotencyKey gives a key that is not done to h.Owner: its
	// previous owner's request died before its work committed.
	TakeOverIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, leaseUntil time.Time) error
	// RenewIdempotencyKeys sets the expiry of the keys that holds name,
	// each only while its Owner still holds it, to leaseUntil: the claims
	// of the requests its process still runs. A key whose row another
	// transaction has locked (the work marking it done) is left as it is,
	// rather than waited for.
	RenewIdempotencyKeys(ctx context.Context, holds []disburse.IdempotencyHold, leaseUntil time.Time) error
	// DeleteIdempotencyKey forgets a key: one past its retention, before
	// the same key is claimed again.
	DeleteIdempotencyKey(ctx context.Context, scope, keyHash string) error
	// AnswerIdempotencyKey keeps the answer of h's request, as
	// disburse.Tx's does inside the work: here for the answer the handler
	// wrote after it. disburse.ErrNotFound when h.Owner no longer holds the key.
	AnswerIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, status int, answer []byte, leaseUntil time.Time) error
	// ReleaseIdempotencyKey lets the key run again: its owner's request
	// failed with a 5xx before its work committed. A key whose work
	// committed is kept, with its lease ended so that a retry replays it.
	ReleaseIdempotencyKey(ctx context.Context, h disburse.IdempotencyHold, now time.Time) error
	// DeleteIdempotencyKeysBefore deletes up to limit keys created before
	// cutoff and returns how many it deleted.
	DeleteIdempotencyKeysBefore(ctx context.Context, cutoff time.Time, limit int) (int, error)
}

// Key is a stored Idempotency-Key: who holds it, for which request, and
// its answer once there is one.
type Key struct {
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
