package disburse

import (
	"context"
	"time"
)

// IdempotencyHold names a claimed Idempotency-Key and the request that
// holds it. Package idempotency claims, seals and replays keys; the money
// transaction only carries the hold's marks (Tx.MarkIdempotencyKeyDone,
// Tx.AnswerIdempotencyKey), so that the key and its answer commit with
// the work or not at all (docs/idempotency.md).
type IdempotencyHold struct {
	Scope   string // an organisation id, or the operator's scope
	KeyHash string // SHA-256 of the key, hex; the key itself is not kept
	Owner   string // the request that holds the claim: a mark by anyone else is ErrNotFound
}

// IdempotencyMarks are the writes a claimed Idempotency-Key makes inside
// the transaction of its request's work: the money transaction's (Tx) and
// any feature's own port that runs claimed requests (webhooks).
type IdempotencyMarks interface {
	// MarkIdempotencyKeyDone records, in the transaction of the work, that
	// the work committed, with what a replay rebuilds its answer from.
	// ErrNotFound when h.Owner no longer holds the key.
	MarkIdempotencyKeyDone(ctx context.Context, h IdempotencyHold, refKind, refID string) error
	// AnswerIdempotencyKey keeps the answer of h's request, sealed, made in
	// the transaction of the work from what it wrote.
	// ErrNotFound when h.Owner no longer holds the key.
	AnswerIdempotencyKey(ctx context.Context, h IdempotencyHold, status int, answer []byte, leaseUntil time.Time) error
}
