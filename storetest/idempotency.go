package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// testIdempotencyKeys: a key is claimed once per scope; only its owner
// marks it done, answers or releases it; a release deletes a key whose
// work did not commit and keeps one whose work did; the sweep deletes
// what is older than its cutoff, at most limit at a time.
func testIdempotencyKeys(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	key := func(scope, hash string, created time.Time) disburse.IdempotencyKey {
		return disburse.IdempotencyKey{Scope: scope, KeyHash: hash, Fingerprint: "fp-" + hash, Owner: "owner-" + hash,
			LeaseUntil: created.Add(time.Minute), CreatedAt: created}
	}
	a := key("org-a", "k1", t0)
	write(t, s, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, a) })
	err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, a) })
	if !errors.Is(err, disburse.ErrDuplicate) {
		t.Fatalf("second claim of one key in one scope: %v, want ErrDuplicate", err)
	}
	// The same key in another scope is another key.
	write(t, s, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, key("org-b", "k1", t0)) })
	same(t, "a claimed key", a, lockedKey(t, s, "org-a", "k1"))

	// Only the owner marks it done or answers it.
	for name, fn := range map[string]func(disburse.Tx) error{
		"MarkIdempotencyKeyDone": func(tx disburse.Tx) error {
			return tx.MarkIdempotencyKeyDone(ctx, "org-a", "k1", "someone-else", "submit", "b1")
		},
		"AnswerIdempotencyKey": func(tx disburse.Tx) error {
			return tx.AnswerIdempotencyKey(ctx, "org-a", "k1", "someone-else", 201, []byte("x"), t0)
		},
	} {
		notFoundWriting(t, s, name+" by another owner", fn)
	}
	// A release before the work committed frees the key.
	write(t, s, func(tx disburse.Tx) error { return tx.ReleaseIdempotencyKey(ctx, "org-a", "k1", a.Owner, t0) })
	notFoundWriting(t, s, "a released key", func(tx disburse.Tx) error { _, err := tx.LockIdempotencyKey(ctx, "org-a", "k1"); return err })

	// A key taken over by a retry is the retry's; done and answered, it keeps everything.
	b := key("org-a", "k2", t0)
	write(t, s, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, b) })
	write(t, s, func(tx disburse.Tx) error {
		return tx.TakeOverIdempotencyKey(ctx, "org-a", "k2", "retry", at(time.Hour))
	})
	notFoundWriting(t, s, "the old owner's mark", func(tx disburse.Tx) error {
		return tx.MarkIdempotencyKeyDone(ctx, "org-a", "k2", b.Owner, "", "")
	})
	write(t, s, func(tx disburse.Tx) error {
		return tx.MarkIdempotencyKeyDone(ctx, "org-a", "k2", "retry", "submit", "batch-1")
	})
	notFoundWriting(t, s, "a take-over of a done key", func(tx disburse.Tx) error {
		return tx.TakeOverIdempotencyKey(ctx, "org-a", "k2", "third", at(2*time.Hour))
	})
	write(t, s, func(tx disburse.Tx) error {
		return tx.AnswerIdempotencyKey(ctx, "org-a", "k2", "retry", 200, []byte{0, 1, 2, 0xff}, at(time.Minute))
	})
	// A release of a done key keeps it, and ends its lease.
	write(t, s, func(tx disburse.Tx) error {
		return tx.ReleaseIdempotencyKey(ctx, "org-a", "k2", "retry", at(2*time.Minute))
	})
	b.Owner, b.Done, b.RefKind, b.RefID, b.Status, b.Answer, b.LeaseUntil = "retry", true, "submit", "batch-1", 200, []byte{0, 1, 2, 0xff}, at(2*time.Minute)
	same(t, "a done and answered key", b, lockedKey(t, s, "org-a", "k2"))

	// The sweep: three old keys (org-b's k1, org-a's k2 and one more), one new.
	write(t, s, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, key("org-c", "k3", t0)) })
	write(t, s, func(tx disburse.Tx) error { return tx.InsertIdempotencyKey(ctx, key("org-c", "new", at(25*time.Hour))) })
	deleted := 0
	for range 3 {
		var n int
		write(t, s, func(tx disburse.Tx) (err error) {
			n, err = tx.DeleteIdempotencyKeysBefore(ctx, at(24*time.Hour), 2)
			return err
		})
		if n > 2 {
			t.Fatalf("DeleteIdempotencyKeysBefore deleted %d, past its limit of 2", n)
		}
		deleted += n
	}
	if deleted != 3 {
		t.Errorf("the sweep deleted %d keys, want the 3 old ones", deleted)
	}
	lockedKey(t, s, "org-c", "new")
}

// lockedKey reads a key with LockIdempotencyKey, which needs a write transaction.
func lockedKey(t *testing.T, s disburse.Store, scope, keyHash string) disburse.IdempotencyKey {
	t.Helper()
	var k disburse.IdempotencyKey
	write(t, s, func(tx disburse.Tx) (err error) {
		k, err = tx.LockIdempotencyKey(t.Context(), scope, keyHash)
		return err
	})
	return k
}

// notFoundWriting is notFound for fn that writes.
func notFoundWriting(t *testing.T, s disburse.Store, what string, fn func(disburse.Tx) error) {
	t.Helper()
	if err := s.Write(t.Context(), fn); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("%s: got %v, want ErrNotFound", what, err)
	}
}
