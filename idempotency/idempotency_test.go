package idempotency

import (
	"context"
	"errors"
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// The rules of a key, on a store in memory: the stores' own behaviour is
// storetest.RunIdempotency's, and the whole path over HTTP, with the work's
// transaction, is httpapi's e2e tests'.

func TestValidKey(t *testing.T) {
	for key, ok := range map[string]bool{
		"a": true, "order-42/retry 1": true, strings.Repeat("k", MaxKeyLen): true,
		"": false, strings.Repeat("k", MaxKeyLen+1): false, "tab\there": false, "é": false, "nul\x00": false,
	} {
		if err := ValidKey(key); (err == nil) != ok {
			t.Errorf("ValidKey(%q) = %v, want ok %v", key, err, ok)
		}
	}
}

// TestSealedAnswerOpensWithItsKeyOnly: an answer opens with the claim of
// the key that sealed it, and with no other, not even the same key's in
// another scope.
func TestSealedAnswerOpensWithItsKeyOnly(t *testing.T) {
	s := newMemStore()
	keys := New(&disburse.Service{Clock: s.now}, s)
	claim := func(scope, key string) *Claim {
		t.Helper()
		c, r, err := keys.Begin(t.Context(), Request{Scope: scope, Key: key, Method: "POST", Path: "/batches"})
		if err != nil || r != nil {
			t.Fatalf("Begin: %v, %v", err, r)
		}
		return c
	}
	c := claim("org-a", "k")
	header := map[string]string{"Content-Type": "application/json"}
	sealed, err := c.sealAnswer(header, []byte(`{"id":"b1"}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.open(Key{Status: 201, Answer: sealed})
	if err != nil {
		t.Fatal(err)
	}
	want := &Replay{Answer: Answer{Status: 201, Header: header, Body: []byte(`{"id":"b1"}`)}}
	if diff := cmp.Diff(want, r); diff != "" {
		t.Errorf("opened answer (-want +got):\n%s", diff)
	}
	for _, other := range []*Claim{claim("org-a", "k2"), claim("org-b", "k")} {
		if _, err := other.open(Key{Status: 201, Answer: sealed}); err == nil {
			t.Errorf("the answer of org-a's k opened with %s's claim", other.hold.Scope)
		}
	}
}

// TestBegin: a key runs once per request; another request with it is 422;
// one in flight is 409 until its lease ends, when a retry takes it over; a
// kept answer replays; a 5xx frees the key; a key past its day runs again.
func TestBegin(t *testing.T) {
	ctx := t.Context()
	s := newMemStore()
	keys := New(&disburse.Service{Clock: s.now}, s)
	req := Request{Scope: "org-a", Key: "k", Method: "POST", Path: "/batches", Body: []byte(`{"name":"x"}`), Lease: time.Minute}
	begin := func(req Request) (*Claim, *Replay, disburse.Code) {
		t.Helper()
		c, r, err := keys.Begin(ctx, req)
		if err != nil {
			return c, r, disburse.ErrorCode(err)
		}
		return c, r, ""
	}

	first, _, code := begin(req)
	if first == nil || code != "" {
		t.Fatalf("first Begin: %v, %s", first, code)
	}
	if _, _, code := begin(req); code != CodeInProgress {
		t.Errorf("Begin in flight: %q, want %s", code, CodeInProgress)
	}
	other := req
	other.Body = []byte(`{"name":"y"}`)
	if _, _, code := begin(other); code != CodeKeyReused {
		t.Errorf("Begin with another body: %q, want %s", code, CodeKeyReused)
	}

	// Its lease over, a request that never answered is taken for dead.
	s.clock = s.clock.Add(time.Minute + time.Second)
	retry, _, code := begin(req)
	if retry == nil || code != "" {
		t.Fatalf("Begin after the lease: %v, %s", retry, code)
	}
	// The dead request's answer is not kept; the retry's is, and replays.
	if err := keys.Finish(ctx, first, Answer{Status: 201, Body: []byte("first")}); err != nil {
		t.Errorf("Finish by a request taken over: %v, want nil", err)
	}
	if err := keys.Finish(ctx, retry, Answer{Status: 201, Header: map[string]string{"Location": "/batches/b1"}, Body: []byte("retry")}); err != nil {
		t.Fatal(err)
	}
	_, replay, code := begin(req)
	if replay == nil || code != "" || replay.Status != 201 || string(replay.Body) != "retry" || replay.Header["Location"] != "/batches/b1" {
		t.Errorf("Begin after an answer: %+v, %q; want the retry's answer", replay, code)
	}

	// A 5xx is not kept: the key runs again at once.
	req5 := req
	req5.Key = "k5"
	c, _, _ := begin(req5)
	if err := keys.Finish(ctx, c, Answer{Status: 500}); err != nil {
		t.Fatal(err)
	}
	if c, _, code := begin(req5); c == nil || code != "" {
		t.Errorf("Begin after a 500: %v, %q; want a new claim", c, code)
	}

	// Past its day a key is swept, or, until the sweep runs, claimed anew.
	s.clock = s.clock.Add(Retention + time.Second)
	if c, _, code := begin(req); c == nil || code != "" {
		t.Errorf("Begin a day on: %v, %q; want a new claim", c, code)
	}
	if n, err := keys.Purge(ctx); err != nil || n != 1 {
		t.Errorf("Purge = %d, %v; want k5's claim, the one past its day", n, err)
	}
}

// TestRenewedClaim, on synctest's clock: the process holding a claim
// renews it while its request runs, so that a retry from another process
// gets 409 across many expiries; once the holder stops renewing (here its
// database is out of reach, as a dead process's would be), the retry
// takes the key over within about one ClaimExpiry, and a request that
// runs past its lease loses its key the same way though its process lives.
func TestRenewedClaim(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		s := newMemStore()
		cut := &cutStore{memStore: s}
		holder := New(&disburse.Service{Clock: time.Now}, cut)
		other := New(&disburse.Service{Clock: time.Now}, s)
		req := Request{Scope: "org-a", Key: "k", Method: "POST", Path: "/batches/b1/submit", RefKind: "submit", RefID: "b1", Lease: time.Hour}
		first, _, err := holder.Begin(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		for range 8 { // two minutes: eight expiries
			time.Sleep(ClaimExpiry)
			if _, _, err := other.Begin(ctx, req); disburse.ErrorCode(err) != CodeInProgress {
				t.Fatalf("a retry while the holder lives and renews: %v, want %s", err, CodeInProgress)
			}
		}
		cut.down.Store(true)
		died := time.Now()
		retry := takeOver(t, other, req)
		if waited := time.Since(died); waited > ClaimExpiry+time.Second {
			t.Errorf("the retry took the key over %v after its holder stopped renewing, want within %v", waited, ClaimExpiry)
		}
		t.Logf("a dead holder's key taken over after %v", time.Since(died))
		_ = holder.Finish(ctx, first, Answer{Status: 500}) // its release cannot be written: the database is out of reach
		if err := other.Finish(ctx, retry, Answer{Status: 200, Rebuilt: true}); err != nil {
			t.Fatal(err)
		}

		// A request that runs past its lease is no longer renewed.
		cut.down.Store(false)
		long := req
		long.Key, long.Lease = "k-long", time.Minute
		stalled, _, err := holder.Begin(ctx, long)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		late := takeOver(t, other, long)
		if held := time.Since(start); held < time.Minute-ClaimExpiry || held > time.Minute+time.Second {
			t.Errorf("a request of a live process held its key %v, want about its lease of %v", held, time.Minute)
		}
		_ = holder.Finish(ctx, stalled, Answer{Status: 500})
		_ = other.Finish(ctx, late, Answer{Status: 500})
		time.Sleep(ClaimExpiry) // the renewal loops end once no claim runs
		synctest.Wait()
	})
}

// takeOver retries req on keys every second until it claims the key.
func takeOver(t *testing.T, keys *Keys, req Request) *Claim {
	t.Helper()
	for range 600 {
		c, _, err := keys.Begin(t.Context(), req)
		if err == nil {
			return c
		}
		if disburse.ErrorCode(err) != CodeInProgress {
			t.Fatal(err)
		}
		time.Sleep(time.Second)
	}
	t.Fatal("the key was never taken over")
	return nil
}

// cutStore is a memStore that refuses every write while down.
type cutStore struct {
	*memStore
	down atomic.Bool
}

func (s *cutStore) Write(ctx context.Context, fn func(Tx) error) error {
	if s.down.Load() {
		return errors.New("database out of reach")
	}
	return s.memStore.Write(ctx, fn)
}

// memStore is a Store in memory: one transaction at a time, rolled back
// when fn fails.
type memStore struct {
	mu    sync.Mutex // the renewal loop writes beside the test
	clock time.Time
	keys  map[[2]string]Key
}

func newMemStore() *memStore {
	return &memStore{clock: time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC), keys: map[[2]string]Key{}}
}

func (s *memStore) now() time.Time { return s.clock }

func (s *memStore) Write(ctx context.Context, fn func(Tx) error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	before := maps.Clone(s.keys)
	if err := fn(memTx{s}); err != nil {
		s.keys = before
		return err
	}
	return nil
}

// memTx is a transaction of a memStore.
type memTx struct{ s *memStore }

func (t memTx) InsertIdempotencyKey(_ context.Context, k Key) error {
	if _, ok := t.s.keys[[2]string{k.Scope, k.KeyHash}]; ok {
		return disburse.ErrDuplicate
	}
	t.s.keys[[2]string{k.Scope, k.KeyHash}] = k
	return nil
}

func (t memTx) LockIdempotencyKey(_ context.Context, scope, keyHash string) (Key, error) {
	k, ok := t.s.keys[[2]string{scope, keyHash}]
	if !ok {
		return Key{}, disburse.ErrNotFound
	}
	return k, nil
}

func (t memTx) TakeOverIdempotencyKey(_ context.Context, h disburse.IdempotencyHold, leaseUntil time.Time) error {
	id := [2]string{h.Scope, h.KeyHash}
	k, ok := t.s.keys[id]
	if !ok || k.Done {
		return disburse.ErrNotFound
	}
	k.Owner, k.LeaseUntil = h.Owner, leaseUntil
	t.s.keys[id] = k
	return nil
}

func (t memTx) RenewIdempotencyKeys(_ context.Context, holds []disburse.IdempotencyHold, leaseUntil time.Time) error {
	for _, h := range holds {
		id := [2]string{h.Scope, h.KeyHash}
		if k, ok := t.s.keys[id]; ok && k.Owner == h.Owner {
			k.LeaseUntil = leaseUntil
			t.s.keys[id] = k
		}
	}
	return nil
}

func (t memTx) DeleteIdempotencyKey(_ context.Context, scope, keyHash string) error {
	delete(t.s.keys, [2]string{scope, keyHash})
	return nil
}

func (t memTx) AnswerIdempotencyKey(_ context.Context, h disburse.IdempotencyHold, status int, answer []byte, leaseUntil time.Time) error {
	id := [2]string{h.Scope, h.KeyHash}
	k, ok := t.s.keys[id]
	if !ok || k.Owner != h.Owner {
		return disburse.ErrNotFound
	}
	k.Status, k.Answer, k.LeaseUntil = status, answer, leaseUntil
	t.s.keys[id] = k
	return nil
}

func (t memTx) ReleaseIdempotencyKey(_ context.Context, h disburse.IdempotencyHold, now time.Time) error {
	id := [2]string{h.Scope, h.KeyHash}
	k, ok := t.s.keys[id]
	switch {
	case !ok || k.Owner != h.Owner:
	case k.Done:
		k.LeaseUntil = now
		t.s.keys[id] = k
	default:
		delete(t.s.keys, id)
	}
	return nil
}

func (t memTx) DeleteIdempotencyKeysBefore(_ context.Context, cutoff time.Time, limit int) (int, error) {
	n := 0
	for id, k := range t.s.keys {
		if n < limit && k.CreatedAt.Before(cutoff) {
			delete(t.s.keys, id)
			n++
		}
	}
	return n, nil
}
