package httpapi_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// A claim expires after idempotency.ClaimExpiry unless the process that
// holds it renews it (docs/idempotency.md): a key whose holder died is
// taken over on another server within one expiry, not the lease; one whose
// holder lives keeps it across many; and the dead holder, woken up,
// commits nothing.

func TestE2EIdempotencyHolderOnAnotherServer(t *testing.T) {
	eachStore(t, testE2EIdempotencyHolderOnAnotherServer)
}

func testE2EIdempotencyHolderOnAnotherServer(t *testing.T, store opener) {
	h := startIdem(t, store)
	replica := startReplica(t, h)
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, true), 201)
	newSubmit := func(name string) (string, string) {
		b := h.createBatch(a, name)
		ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "100.00")), 200)
		return b.ID, "/batches/" + b.ID + "/submit"
	}

	// A process claims the key and dies: its claim is written, and no
	// one renews it. The retry on another server waits one expiry, not
	// the lease.
	b1, submit1 := newSubmit("November")
	cut := &cutKeys{Store: h.keyStore}
	deadProcess := idempotency.New(h.svc, cut)
	dead, replay, err := deadProcess.Begin(t.Context(), idempotency.Request{Scope: a.ID, Key: "submit-1", Method: "POST", Path: submit1,
		RefKind: "submit", RefID: b1, Lease: idemLease})
	if err != nil || replay != nil {
		t.Fatalf("claim: %v, %v", err, replay)
	}
	cut.down.Store(true)
	problem(t, replica.sendKey("POST", submit1, a.token, "submit-1", ``), 409, "idempotency_in_progress")
	h.clock.Advance(idempotency.ClaimExpiry + time.Second) // well inside the lease of a minute
	retried := replica.sendKey("POST", submit1, a.token, "submit-1", ``)
	if ok[Batch](t, retried, 200).StatusCode != "CLOSED" || retried.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry %v after the holder died: %s %s, want it run", idempotency.ClaimExpiry+time.Second, retried.header, retried.body)
	}
	// The dead process wakes up with its database back: its work commits nothing.
	cut.down.Store(false)
	if _, err := deadProcess.Claimed(dead).Submit(t.Context(), a.ID, b1); disburse.ErrorCode(err) != idempotency.CodeInProgress {
		t.Errorf("the taken-over request's submit: %v, want idempotency_in_progress", err)
	}
	sameAnswer(t, retried, h.sendKey("POST", submit1, a.token, "submit-1", ``))
	if acc := h.account(a); acc.Balance != "900.00" {
		t.Errorf("balance %s, want 900.00: the submit moved money once", acc.Balance)
	}

	// A process that lives renews its claim: the retry on another server
	// is 409 across several expiries, and the request then runs, once.
	b2, submit2 := newSubmit("December")
	live := h.claimAs(a.ID, "POST", submit2, "submit-2", "")
	for range 5 { // 50 s: more than three expiries, within the lease of a minute
		h.clock.Advance(idempotency.ClaimExpiry * 2 / 3)
		if err := h.keys.Renew(t.Context()); err != nil {
			t.Fatal(err)
		}
		problem(t, replica.sendKey("POST", submit2, a.token, "submit-2", ``), 409, "idempotency_in_progress")
	}
	if _, err := h.keys.Claimed(live).Submit(t.Context(), a.ID, b2); err != nil {
		t.Fatalf("the live request's submit: %v", err)
	}
	replayed := replica.sendKey("POST", submit2, a.token, "submit-2", ``)
	if ok[Batch](t, replayed, 200).StatusCode != "CLOSED" || replayed.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("retry after the live request's work: %s %s, want its replay", replayed.header, replayed.body)
	}
	if acc := h.account(a); acc.Balance != "800.00" {
		t.Errorf("balance %s, want 800.00: each submit moved money once", acc.Balance)
	}
}

// cutKeys is an Idempotency-Key store that refuses every write while
// down: the database out of reach of a process, or the process dead.
type cutKeys struct {
	idempotency.Store
	down atomic.Bool
}

func (c *cutKeys) Write(ctx context.Context, fn func(idempotency.Tx) error) error {
	if c.down.Load() {
		return errors.New("cut: the database is out of reach")
	}
	return c.Store.Write(ctx, fn)
}
