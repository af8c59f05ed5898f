package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// RunIdempotency runs the suite of the Idempotency-Keys: the keys' own
// port (idempotency.Tx) and the marks the work's transaction makes
// (disburse.Tx). open returns a new, empty, migrated store and the
// idempotency.Store on the same database, and arranges their closing
// with t.Cleanup.
func RunIdempotency(t *testing.T, open func(t *testing.T) (disburse.Store, idempotency.Store)) {
	s, ks := open(t)
	testIdempotencyKeys(t, s, ks)
}

// testIdempotencyKeys: a key is claimed once per scope; only its owner
// marks it done, answers or releases it; a release deletes a key whose
// work did not commit and keeps one whose work did; the sweep deletes
// what is older than its cutoff, at most limit at a time.
func testIdempotencyKeys(t *testing.T, s disburse.Store, ks idempotency.Store) {
	ctx := t.Context()
	key := func(scope, hash string, created time.Time) idempotency.Key {
		return idempotency.Key{Scope: scope, KeyHash: hash, Fingerprint: "fp-" + hash, Owner: "owner-" + hash,
			LeaseUntil: created.Add(time.Minute), CreatedAt: created}
	}
	hold := func(scope, hash, owner string) disburse.IdempotencyHold {
		return disburse.IdempotencyHold{Scope: scope, KeyHash: hash, Owner: owner}
	}
	a := key("org-a", "k1", t0)
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, a) })
	err := ks.Write(ctx, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, a) })
	if !errors.Is(err, disburse.ErrDuplicate) {
		t.Fatalf("second claim of one key in one scope: %v, want ErrDuplicate", err)
	}
	// The same key in another scope is another key.
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, key("org-b", "k1", t0)) })
	same(t, "a claimed key", a, lockedKey(t, ks, "org-a", "k1"))

	// Only the owner marks it done or answers it, in the work's
	// transaction or in the keys' own.
	notFoundWriting(t, s, "MarkIdempotencyKeyDone by another owner", func(tx disburse.Tx) error {
		return tx.MarkIdempotencyKeyDone(ctx, hold("org-a", "k1", "someone-else"), "submit", "b1")
	})
	notFoundWriting(t, s, "AnswerIdempotencyKey in the work by another owner", func(tx disburse.Tx) error {
		return tx.AnswerIdempotencyKey(ctx, hold("org-a", "k1", "someone-else"), 201, []byte("x"), t0)
	})
	notFoundWritingKeys(t, ks, "AnswerIdempotencyKey by another owner", func(tx idempotency.Tx) error {
		return tx.AnswerIdempotencyKey(ctx, hold("org-a", "k1", "someone-else"), 201, []byte("x"), t0)
	})
	// A release before the work committed frees the key.
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.ReleaseIdempotencyKey(ctx, hold("org-a", "k1", a.Owner), t0) })
	notFoundWritingKeys(t, ks, "a released key", func(tx idempotency.Tx) error {
		_, err := tx.LockIdempotencyKey(ctx, "org-a", "k1")
		return err
	})

	// A key taken over by a retry is the retry's; done and answered, it keeps everything.
	b := key("org-a", "k2", t0)
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, b) })
	writeKeys(t, ks, func(tx idempotency.Tx) error {
		return tx.TakeOverIdempotencyKey(ctx, hold("org-a", "k2", "retry"), at(time.Hour))
	})
	notFoundWriting(t, s, "the old owner's mark", func(tx disburse.Tx) error {
		return tx.MarkIdempotencyKeyDone(ctx, hold("org-a", "k2", b.Owner), "", "")
	})
	write(t, s, func(tx disburse.Tx) error {
		return tx.MarkIdempotencyKeyDone(ctx, hold("org-a", "k2", "retry"), "submit", "batch-1")
	})
	notFoundWritingKeys(t, ks, "a take-over of a done key", func(tx idempotency.Tx) error {
		return tx.TakeOverIdempotencyKey(ctx, hold("org-a", "k2", "third"), at(2*time.Hour))
	})
	write(t, s, func(tx disburse.Tx) error {
		return tx.AnswerIdempotencyKey(ctx, hold("org-a", "k2", "retry"), 200, []byte{0, 1, 2, 0xff}, at(time.Minute))
	})
	// A release of a done key keeps it, and ends its lease.
	writeKeys(t, ks, func(tx idempotency.Tx) error {
		return tx.ReleaseIdempotencyKey(ctx, hold("org-a", "k2", "retry"), at(2*time.Minute))
	})
	b.Owner, b.Done, b.RefKind, b.RefID, b.Status, b.Answer, b.LeaseUntil = "retry", true, "submit", "batch-1", 200, []byte{0, 1, 2, 0xff}, at(2*time.Minute)
	same(t, "a done and answered key", b, lockedKey(t, ks, "org-a", "k2"))

	// A renewal extends the expiry of the keys its holds still own, all
	// in one statement, and leaves a key another owner holds as it is.
	r1, r2 := key("org-r", "r1", t0), key("org-r", "r2", t0)
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, r1) })
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, r2) })
	writeKeys(t, ks, func(tx idempotency.Tx) error {
		return tx.RenewIdempotencyKeys(ctx, []disburse.IdempotencyHold{
			hold("org-r", "r1", r1.Owner), hold("org-r", "r2", "taken-over-from"), hold("org-r", "absent", "x")}, at(5*time.Minute))
	})
	r1.LeaseUntil = at(5 * time.Minute)
	same(t, "a renewed key", r1, lockedKey(t, ks, "org-r", "r1"))
	same(t, "a key renewed by a holder that no longer owns it", r2, lockedKey(t, ks, "org-r", "r2"))
	writeKeys(t, ks, func(tx idempotency.Tx) error {
		for _, k := range []idempotency.Key{r1, r2} {
			if err := tx.DeleteIdempotencyKey(ctx, k.Scope, k.KeyHash); err != nil {
				return err
			}
		}
		return nil
	})

	// The sweep: three old keys (org-b's k1, org-a's k2 and one more), one new.
	writeKeys(t, ks, func(tx idempotency.Tx) error { return tx.InsertIdempotencyKey(ctx, key("org-c", "k3", t0)) })
	writeKeys(t, ks, func(tx idempotency.Tx) error {
		return tx.InsertIdempotencyKey(ctx, key("org-c", "new", at(25*time.Hour)))
	})
	deleted := 0
	for range 3 {
		var n int
		writeKeys(t, ks, func(tx idempotency.Tx) (err error) {
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
	lockedKey(t, ks, "org-c", "new")
}

// lockedKey reads a key with LockIdempotencyKey, which needs a write transaction.
func lockedKey(t *testing.T, ks idempotency.Store, scope, keyHash string) idempotency.Key {
	t.Helper()
	var k idempotency.Key
	writeKeys(t, ks, func(tx idempotency.Tx) (err error) {
		k, err = tx.LockIdempotencyKey(t.Context(), scope, keyHash)
		return err
	})
	return k
}

// writeKeys is write for the keys' own store.
func writeKeys(t *testing.T, ks idempotency.Store, fn func(idempotency.Tx) error) {
	t.Helper()
	if err := ks.Write(t.Context(), fn); err != nil {
		t.Fatalf("write: %v", err)
	}
}

// notFoundWritingKeys is notFoundWriting for the keys' own store.
func notFoundWritingKeys(t *testing.T, ks idempotency.Store, what string, fn func(idempotency.Tx) error) {
	t.Helper()
	if err := ks.Write(t.Context(), fn); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("%s: got %v, want ErrNotFound", what, err)
	}
}

// notFoundWriting is notFound for fn that writes.
func notFoundWriting(t *testing.T, s disburse.Store, what string, fn func(disburse.Tx) error) {
	t.Helper()
	if err := s.Write(t.Context(), fn); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("%s: got %v, want ErrNotFound", what, err)
	}
}
