package disburse

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
