package httpapi_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/webhooks"
)

// Idempotency-Key (docs/idempotency.md), on both stores: a replay is the
// first answer byte for byte, a key reused for another request is 422,
// one in flight is 409, 5xx answers are not kept, two replicas racing
// with one key run it once, and a process that died mid-request leaves
// a key that a retry either runs or replays, never twice.

const idemLease = time.Minute

// startIdem serves the store with a lease the tests can outlast by moving the clock.
func startIdem(t *testing.T, open opener) *harness {
	t.Helper()
	return startOn(t, open, httpapi.Config{AdminToken: adminToken, IdempotencyLease: idemLease})
}

// startFaulty is startIdem on a store whose writes, the keys' own
// included, fail when the test says.
func startFaulty(t *testing.T, open opener) (*harness, *faultyStore) {
	t.Helper()
	store := open(t)
	faulty := &faultyStore{featureStore: store}
	cfg := httpapi.Config{AdminToken: adminToken, IdempotencyLease: idemLease, IdempotencyStore: faulty.Idempotency(), AuthStore: faulty.Auth()}
	return serveStore(t, faulty, cfg), faulty
}

// sendKey is do with an Idempotency-Key header.
func (h *harness) sendKey(method, path, token, key string, body string) response {
	h.t.Helper()
	req, err := http.NewRequest(method, h.base+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header["Idempotency-Key"] = []string{key}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{status: res.StatusCode, header: res.Header, body: data}
}

// sameAnswer asserts that replay is first again, byte for byte, marked replayed.
func sameAnswer(t *testing.T, first, replay response) {
	t.Helper()
	if replay.status != first.status || !bytes.Equal(replay.body, first.body) {
		t.Errorf("replay %d %s\nwant %d %s", replay.status, replay.body, first.status, first.body)
	}
	for _, k := range []string{"Content-Type", "Location", "Cache-Control"} {
		if replay.header.Get(k) != first.header.Get(k) {
			t.Errorf("replay %s = %q, want %q", k, replay.header.Get(k), first.header.Get(k))
		}
	}
	if replay.header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("replay without Idempotent-Replayed: true")
	}
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("a first answer marked Idempotent-Replayed")
	}
}

func TestE2EIdempotentReplay(t *testing.T) { eachStore(t, testE2EIdempotentReplay) }

func testE2EIdempotentReplay(t *testing.T, store opener) {
	h := startIdem(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	other := h.createOrg("Other", false, "")

	first := h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"November"}`)
	b := ok[Batch](t, first, 201)
	sameAnswer(t, first, h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"November"}`))
	if list := ok[[]Batch](t, h.do("GET", "/batches", a.token, nil), 200); len(list) != 1 {
		t.Errorf("%d batches after a replayed create, want 1", len(list))
	}

	// Another request with the key: 422, on another path or with another body.
	problem(t, h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"December"}`), 422, "idempotency_key_reused")
	problem(t, h.sendKey("POST", "/batches/"+b.ID+"/cancel", a.token, "create-1", ``), 422, "idempotency_key_reused")
	// Keys are the organisation's: another one's same key is its own.
	ok[Batch](t, h.sendKey("POST", "/batches", other.token, "create-1", `{"name":"November"}`), 201)

	// A 4xx answer is kept too, and replayed.
	bad := h.sendKey("POST", "/batches/"+b.ID+"/payments", a.token, "add-1", `{"clearExisting":false,"payments":[{"msisdn":"0712","amount":1}]}`)
	failures(t, bad)
	sameAnswer(t, bad, h.sendKey("POST", "/batches/"+b.ID+"/payments", a.token, "add-1", `{"clearExisting":false,"payments":[{"msisdn":"0712","amount":1}]}`))

	added := h.sendKey("POST", "/batches/"+b.ID+"/payments", a.token, "add-2", `{"clearExisting":false,"payments":[`+pay(member, "150.00")+`,`+pay(third, "75.50")+`]}`)
	ok[Batch](t, added, 200)
	sameAnswer(t, added, h.sendKey("POST", "/batches/"+b.ID+"/payments", a.token, "add-2", `{"clearExisting":false,"payments":[`+pay(member, "150.00")+`,`+pay(third, "75.50")+`]}`))
	if got := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200); len(got) != 2 {
		t.Errorf("%d payments after a replayed add, want 2", len(got))
	}

	// A submit's answer is rebuilt from the batch, and is the same bytes.
	ok[Member](t, h.register(member, true), 201)
	submitted := h.sendKey("POST", "/batches/"+b.ID+"/submit", a.token, "submit-1", ``)
	ok[Batch](t, submitted, 200)
	sameAnswer(t, submitted, h.sendKey("POST", "/batches/"+b.ID+"/submit", a.token, "submit-1", ``))
	if got := h.account(a); got.Balance != "774.50" {
		t.Errorf("balance %s after a replayed submit, want 774.50", got.Balance)
	}

	// A submit that fails is kept whole, like any 4xx.
	poor := h.createBatch(other, "Too much")
	ok[Batch](t, h.addPayments(other, poor.ID, false, pay(member, "5.00")), 200)
	refused := h.sendKey("POST", "/batches/"+poor.ID+"/submit", other.token, "submit-poor", ``)
	problem(t, refused, 422, "insufficient_float")
	sameAnswer(t, refused, h.sendKey("POST", "/batches/"+poor.ID+"/submit", other.token, "submit-poor", ``))

	// The operator's keys: a deposit replayed moves no money.
	path := "/admin/accounts/" + a.Accounts[0].ID + "/deposits"
	dep := h.sendKey("POST", path, adminToken, "deposit-1", `{"amount":100}`)
	ok[map[string]any](t, dep, 201)
	sameAnswer(t, dep, h.sendKey("POST", path, adminToken, "deposit-1", `{"amount":100}`))
	if got := h.account(a); got.Balance != "874.50" {
		t.Errorf("balance %s after a replayed deposit, want 874.50", got.Balance)
	}
	// An API key's answer is replayed, secret included, to the key's holder only.
	keyPath := "/admin/organisations/" + a.ID + "/apiKeys"
	k := h.sendKey("POST", keyPath, adminToken, "apikey-1", ``)
	ok[map[string]any](t, k, 201)
	sameAnswer(t, k, h.sendKey("POST", keyPath, adminToken, "apikey-1", ``))

	// The header's own rules: 400 on Idempotency-Key, nothing run.
	for _, key := range []string{"", strings.Repeat("k", 256), "caf\u00e9", "tab\there"} {
		wantFailures(t, h.sendKey("POST", "/batches", a.token, key, `{"name":"x"}`), failure{FieldName: "Idempotency-Key", FieldValue: key})
	}
	ok[Batch](t, h.sendKey("POST", "/batches", a.token, strings.Repeat("k", 255), `{"name":"x"}`), 201)
	if list := ok[[]Batch](t, h.do("GET", "/batches", a.token, nil), 200); len(list) != 2 {
		t.Errorf("%d batches, want 2", len(list))
	}
}

// claimAs claims key as the API would for a request, with the service
// directly: a request that is in flight, or whose process died.
func (h *harness) claimAs(scope, method, path, key, body string) *idempotency.Claim {
	h.t.Helper()
	req := idempotency.Request{Scope: scope, Key: key, Method: method, Path: path, Body: []byte(body), Lease: idemLease}
	// What the API names for the one route whose answer it rebuilds.
	if id, ok := strings.CutSuffix(strings.TrimPrefix(path, "/batches/"), "/submit"); ok {
		req.RefKind, req.RefID = "submit", id
	}
	c, replay, err := h.keys.Begin(h.t.Context(), req)
	if err != nil || replay != nil {
		h.t.Fatalf("claim: %v, %v", err, replay)
	}
	return c
}

func TestE2EIdempotencyInFlightAndCrashes(t *testing.T) {
	eachStore(t, testE2EIdempotencyInFlightAndCrashes)
}

func testE2EIdempotencyInFlightAndCrashes(t *testing.T, store opener) {
	h := startIdem(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, true), 201)
	b := h.createBatch(a, "November")
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "150.00"), pay(third, "75.50")), 200)
	submit := "/batches/" + b.ID + "/submit"

	// In flight: the claim is held and its lease runs.
	claim := h.claimAs(a.ID, "POST", submit, "submit-1", "")
	problem(t, h.sendKey("POST", submit, a.token, "submit-1", ``), 409, "idempotency_in_progress")
	// Another body with the key is still a different request.
	problem(t, h.sendKey("POST", submit, a.token, "submit-1", `{"x":1}`), 422, "idempotency_key_reused")

	// The process dies after the submit committed, before keeping its
	// answer: the key is done, in the same transaction as the money, and
	// a retry replays it at once, its lease still running.
	if _, err := h.keys.Claimed(claim).Submit(t.Context(), a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	replay := h.sendKey("POST", submit, a.token, "submit-1", ``)
	got := ok[Batch](t, replay, 200)
	if replay.header.Get("Idempotent-Replayed") != "true" || got.StatusCode != "OPEN" || len(got.Payments) != 2 {
		t.Errorf("rebuilt replay %s %s", replay.header, replay.body)
	}
	if acc := h.account(a); acc.Balance != "774.50" || acc.HeldBalance != "75.50" {
		t.Errorf("account %+v: money moved twice?", acc)
	}

	// A process that died before its work committed leaves a claim that a
	// retry takes over once the lease is over, and runs once.
	b2 := h.createBatch(a, "December")
	ok[Batch](t, h.addPayments(a, b2.ID, false, pay(member, "10.00")), 200)
	submit2 := "/batches/" + b2.ID + "/submit"
	dead := h.claimAs(a.ID, "POST", submit2, "submit-2", "")
	problem(t, h.sendKey("POST", submit2, a.token, "submit-2", ``), 409, "idempotency_in_progress")
	h.clock.Advance(idemLease + time.Second)
	retried := h.sendKey("POST", submit2, a.token, "submit-2", ``)
	if ok[Batch](t, retried, 200).StatusCode != "CLOSED" || retried.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry after a dead claim: %s %s", retried.header, retried.body)
	}
	// The dead request, were it to wake up, commits nothing: its claim is gone.
	_, err := h.keys.Claimed(dead).Submit(t.Context(), a.ID, b2.ID)
	if disburse.ErrorCode(err) != idempotency.CodeInProgress {
		t.Errorf("the taken-over request's submit: %v, want idempotency_in_progress", err)
	}
	sameAnswer(t, retried, h.sendKey("POST", submit2, a.token, "submit-2", ``))
	if acc := h.account(a); acc.Balance != "764.50" {
		t.Errorf("balance %s, want 764.50: the second submit moved money once", acc.Balance)
	}

	// A claim with neither a renderer nor a reference to rebuild its answer
	// from commits nothing: its key could replay nothing.
	keyPath := "/admin/organisations/" + a.ID + "/apiKeys"
	bare := h.claimAs(idempotency.OperatorScope, "POST", keyPath, "apikey-bare", "")
	if _, _, err := h.auth.Claimed(bare).CreateAPIKey(t.Context(), a.ID); err == nil {
		t.Error("a claim without a way to answer committed its work")
	}

	// Kept 24 hours, then swept: the key runs again.
	h.clock.Advance(idempotency.Retention)
	if n, err := h.keys.Purge(t.Context()); err != nil || n != 2 {
		t.Errorf("Purge = %d, %v; want the 2 submits' keys past their day (not the last, a day old to the microsecond)", n, err)
	}
	a.token = h.token(a.key)                                                             // the old one expired with the day
	problem(t, h.sendKey("POST", submit, a.token, "submit-1", ``), 409, "invalid_state") // runs: the batch is no longer DRAFT
}

// faultyStore fails the write transactions that fail says, as a database
// that errs mid-request would. The writes of its Idempotency-Key store
// (faultyKeys) count and fail with its own.
type faultyStore struct {
	featureStore
	writes atomic.Int64
	fail   func(n int64) bool
	// lost says which of the money's writes commit and then fail, as a
	// COMMIT the server took whose answer the connection lost.
	lost func(n int64) bool
}

func (f *faultyStore) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	n, err := f.count()
	if err != nil {
		return err
	}
	if err := f.featureStore.Write(ctx, fn); err != nil {
		return err
	}
	if f.lost != nil && f.lost(n) {
		return errors.New("faulty store: the commit's answer was lost")
	}
	return nil
}

// refuse counts a write and fails it when fail says.
func (f *faultyStore) refuse() error {
	_, err := f.count()
	return err
}

// count counts a write, returns its number, and fails it when fail says.
func (f *faultyStore) count() (int64, error) {
	n := f.writes.Add(1)
	if f.fail != nil && f.fail(n) {
		return n, errors.New("faulty store: write refused")
	}
	return n, nil
}

// Webhooks hands over the webhooks' port, its writes counted and failed
// as the store's own are.
func (f *faultyStore) Webhooks() webhooks.Store { return faultyHooks{f.featureStore.Webhooks(), f} }

// faultyHooks is the webhooks' port of a faultyStore.
type faultyHooks struct {
	webhooks.Store
	f *faultyStore
}

func (h faultyHooks) Write(ctx context.Context, fn func(webhooks.Tx) error) error {
	if err := h.f.refuse(); err != nil {
		return err
	}
	return h.Store.Write(ctx, fn)
}

// Auth hands over the keys' and tokens' port, its writes counted and
// failed as the store's own are.
func (f *faultyStore) Auth() auth.Store { return faultyAuth{f.featureStore.Auth(), f} }

// faultyAuth is the keys' and tokens' port of a faultyStore.
type faultyAuth struct {
	auth.Store
	f *faultyStore
}

func (a faultyAuth) Write(ctx context.Context, fn func(auth.Tx) error) error {
	if err := a.f.refuse(); err != nil {
		return err
	}
	return a.Store.Write(ctx, fn)
}

// Idempotency hands over the Idempotency-Key store, its writes counted
// and failed as the store's own are.
func (f *faultyStore) Idempotency() idempotency.Store {
	return faultyKeys{f.featureStore.Idempotency(), f}
}

// faultyKeys is a faultyStore's Idempotency-Key store.
type faultyKeys struct {
	idempotency.Store
	f *faultyStore
}

func (k faultyKeys) Write(ctx context.Context, fn func(idempotency.Tx) error) error {
	if err := k.f.refuse(); err != nil {
		return err
	}
	return k.Store.Write(ctx, fn)
}

func TestE2EIdempotency5xxNotKept(t *testing.T) { eachStore(t, testE2EIdempotency5xxNotKept) }

func testE2EIdempotency5xxNotKept(t *testing.T, store opener) {
	h, faulty := startFaulty(t, store)
	a := h.createOrg("Acme", false, "")
	// The create's own transaction fails (the claim's is write 1 from here).
	base := faulty.writes.Load()
	faulty.fail = func(n int64) bool { return n == base+2 }
	problem(t, h.sendKey("POST", "/batches", a.token, "k", `{"name":"November"}`), 500, "internal")
	faulty.fail = nil
	first := h.sendKey("POST", "/batches", a.token, "k", `{"name":"November"}`)
	ok[Batch](t, first, 201)
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry after a 500 was a replay")
	}
	sameAnswer(t, first, h.sendKey("POST", "/batches", a.token, "k", `{"name":"November"}`))
}

// TestE2EIdempotencyInDoubt: a request that never learnt whether its
// work committed (the store fails the write after its commit, or instead
// of it) answers 500, and the release of its key after that fails too, so
// the key stays as the work left it. The retry settles it at once, long
// before the lease ends: the work that committed is replayed, the work
// that did not runs anew, once (docs/idempotency.md).
func TestE2EIdempotencyInDoubt(t *testing.T) { eachStore(t, testE2EIdempotencyInDoubt) }

func testE2EIdempotencyInDoubt(t *testing.T, store opener) {
	h, faulty := startFaulty(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, true), 201)
	b := h.createBatch(a, "November")
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "150.00")), 200)
	submit := "/batches/" + b.ID + "/submit"

	// The submit commits and its answer is lost; the release is refused.
	// Writes from here: the claim, the work, the release.
	base := faulty.writes.Load()
	faulty.lost = func(n int64) bool { return n == base+2 }
	faulty.fail = func(n int64) bool { return n == base+3 }
	problem(t, h.sendKey("POST", submit, a.token, "submit-1", ``), 500, "internal")
	faulty.lost, faulty.fail = nil, nil
	replay := h.sendKey("POST", submit, a.token, "submit-1", ``)
	if got := ok[Batch](t, replay, 200); replay.header.Get("Idempotent-Replayed") != "true" || got.StatusCode != "CLOSED" {
		t.Errorf("retry of a committed submit: %s %s, want its replay", replay.header, replay.body)
	}
	if acc := h.account(a); acc.Balance != "850.00" {
		t.Errorf("balance %s, want 850.00: the submit moved money once", acc.Balance)
	}

	// A create whose work does not commit, and whose release is refused.
	base = faulty.writes.Load()
	faulty.fail = func(n int64) bool { return n == base+2 || n == base+3 }
	problem(t, h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"December"}`), 500, "internal")
	faulty.fail = nil
	first := h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"December"}`)
	created := ok[Batch](t, first, 201)
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry of work that did not commit was a replay")
	}
	sameAnswer(t, first, h.sendKey("POST", "/batches", a.token, "create-1", `{"name":"December"}`))
	if _, err := h.svc.Batch(t.Context(), a.ID, created.ID); err != nil {
		t.Errorf("the batch the retry created: %v", err)
	}

	// The same, retried on another server, which cannot know that the
	// request is over: a submit that committed replays at once; a create
	// that did not waits out the claim's expiry, which no one renews, not
	// the lease, and then runs once.
	replica := startReplica(t, h)
	b2 := h.createBatch(a, "January")
	ok[Batch](t, h.addPayments(a, b2.ID, false, pay(member, "50.00")), 200)
	submit2 := "/batches/" + b2.ID + "/submit"
	base = faulty.writes.Load()
	faulty.lost = func(n int64) bool { return n == base+2 }
	faulty.fail = func(n int64) bool { return n == base+3 }
	problem(t, h.sendKey("POST", submit2, a.token, "submit-2", ``), 500, "internal")
	faulty.lost, faulty.fail = nil, nil
	replay = replica.sendKey("POST", submit2, a.token, "submit-2", ``)
	if got := ok[Batch](t, replay, 200); replay.header.Get("Idempotent-Replayed") != "true" || got.StatusCode != "CLOSED" {
		t.Errorf("retry on another server of a committed submit: %s %s, want its replay", replay.header, replay.body)
	}
	base = faulty.writes.Load()
	faulty.fail = func(n int64) bool { return n == base+2 || n == base+3 }
	problem(t, h.sendKey("POST", "/batches", a.token, "create-2", `{"name":"February"}`), 500, "internal")
	faulty.fail = nil
	problem(t, replica.sendKey("POST", "/batches", a.token, "create-2", `{"name":"February"}`), 409, "idempotency_in_progress")
	h.clock.Advance(idempotency.ClaimExpiry + time.Second)
	first = replica.sendKey("POST", "/batches", a.token, "create-2", `{"name":"February"}`)
	ok[Batch](t, first, 201)
	if first.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the retry on another server of work that did not commit was a replay")
	}
	sameAnswer(t, first, h.sendKey("POST", "/batches", a.token, "create-2", `{"name":"February"}`))
	if acc := h.account(a); acc.Balance != "800.00" {
		t.Errorf("balance %s, want 800.00: each submit moved money once", acc.Balance)
	}
}

// startReplica serves h's database from a second server, as another
// process on the same database would.
func startReplica(t *testing.T, h *harness) *harness {
	t.Helper()
	return startServerOf(t, h, httpapi.Config{AdminToken: adminToken, IdempotencyLease: idemLease})
}

// startServerOf serves h's database from another server with cfg, and
// h's Idempotency-Key and auth stores.
func startServerOf(t *testing.T, h *harness, cfg httpapi.Config) *harness {
	t.Helper()
	cfg.IdempotencyStore, cfg.AuthStore = h.keyStore, h.auth.Store
	svc := disburse.NewService(h.svc.Store)
	svc.Clock, svc.Log, svc.PageSize = h.clock.Now, e2eLogger(), 3
	hooks := webhooks.New(h.hooks.Store, svc)
	hooks.Config = h.hooks.Config
	cfg.Webhooks = hooks
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Log = e2eLogger()
	srv := &http.Server{Handler: httpapi.New(svc, cfg)}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return &harness{t: t, base: "http://" + ln.Addr().String(), svc: svc, hooks: hooks, clock: h.clock,
		keys: idempotency.New(svc, h.keyStore), keyStore: h.keyStore, auth: auth.New(h.auth.Store, svc),
		client: &http.Client{Transport: validatingTransport{t}}}
}

func TestE2EIdempotencyRace(t *testing.T) { eachStore(t, testE2EIdempotencyRace) }

func testE2EIdempotencyRace(t *testing.T, store opener) {
	h := startIdem(t, store)
	replicas := []*harness{h, startReplica(t, h)}
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, true), 201)
	b := h.createBatch(a, "November")
	var payments []string
	for range 20 {
		payments = append(payments, pay(member, "10.00"), pay(third, "5.00"))
	}
	ok[Batch](t, h.addPayments(a, b.ID, false, payments...), 200)

	// Eight requests, four on each replica, one key: one submit runs.
	const n = 8
	answers := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			r := replicas[i%2]
			answers[i] = r.sendKey("POST", "/batches/"+b.ID+"/submit", a.token, "race", ``)
		})
	}
	wg.Wait()
	var ran, replayed, inFlight int
	var first []byte
	for _, r := range answers {
		switch {
		case r.status == 200 && r.header.Get("Idempotent-Replayed") == "":
			ran++
			first = r.body
		case r.status == 200:
			replayed++
		case r.status == 409 && strings.Contains(string(r.body), "idempotency_in_progress"):
			inFlight++
		default:
			t.Errorf("unexpected answer %d %s", r.status, r.body)
		}
	}
	t.Logf("one key, %d submits on two replicas: ran %d, replayed %d, in flight %d", n, ran, replayed, inFlight)
	if ran != 1 || ran+replayed+inFlight != n {
		t.Errorf("ran %d, replayed %d, in flight %d; want exactly one run", ran, replayed, inFlight)
	}
	for _, r := range answers {
		if r.status == 200 && !bytes.Equal(r.body, first) {
			t.Errorf("a replay differs from the answer:\n%s\n%s", r.body, first)
		}
	}
	if acc := h.account(a); acc.Balance != "700.00" || acc.HeldBalance != "100.00" {
		t.Errorf("account %+v, want 700.00 and 100.00 held: the submit moved money once", acc)
	}

	// Creates racing with one key make one batch.
	for i := range n {
		wg.Go(func() {
			answers[i] = replicas[i%2].sendKey("POST", "/batches", a.token, "race-create", `{"name":"raced"}`)
		})
	}
	wg.Wait()
	list := ok[[]Batch](t, h.do("GET", "/batches", a.token, nil), 200)
	var names []string
	for _, b := range list {
		names = append(names, b.Name)
	}
	if diff := cmp.Diff([]string{"raced", "November"}, names); diff != "" {
		t.Errorf("batches (-want +got):\n%s", diff)
	}
}

// TestE2EIdempotentAnswerInTheWork: every route makes its answer in the
// work's transaction, so a process that stops before keeping the answer
// after it (here: that write fails) still leaves the answer the client
// got, byte for byte, to replay at once. That holds for the answers that
// carry a secret shown once (an API key, a webhook's signing secret),
// which the key's row keeps sealed: the API key is in clear in no table,
// a webhook's secret only where it signs from (webhook_endpoints).
func TestE2EIdempotentAnswerInTheWork(t *testing.T) { eachStore(t, testE2EIdempotentAnswerInTheWork) }

func testE2EIdempotentAnswerInTheWork(t *testing.T, store opener) {
	h, faulty := startFaulty(t, store)
	a := h.createOrg("Acme", false, "")
	b := h.createBatch(a, "November")
	toCancel := h.createBatch(a, "January")
	// An address for documentation (RFC 5737): public, so no option is
	// needed, and never sent to: no delivery runs here.
	const hookURL = "https://93.184.215.10/hook"
	hook := ok[webhookWire](t, h.do("POST", "/webhooks", a.token, map[string]any{"url": hookURL}), 201)
	// A cancel makes a delivery to the hook, to send again below.
	ok[Batch](t, h.do("POST", "/batches/"+h.createBatch(a, "Cancelled").ID+"/cancel", a.token, nil), 200)
	deliveries := ok[[]deliveryWire](t, h.do("GET", "/webhooks/"+hook.ID+"/deliveries", a.token, nil), 200)
	if len(deliveries) != 1 {
		t.Fatalf("%d deliveries, want 1", len(deliveries))
	}
	var secrets []string // shown once each
	for i, tc := range []struct{ path, token, body string }{
		{"/batches", a.token, `{"name":"December","externalId":"dec-1"}`},
		{"/batches/" + b.ID + "/payments", a.token, `{"clearExisting":false,"payments":[` + pay(member, "150.00") + `,` + pay(third, "75.50") + `]}`},
		{"/batches/" + toCancel.ID + "/cancel", a.token, ``},
		{"/admin/organisations", adminToken, `{"name":"Beta","referralsEnabled":true}`},
		{"/admin/organisations/" + a.ID + "/accounts", adminToken, `{"name":"Second"}`},
		{"/admin/accounts/" + a.Accounts[0].ID + "/deposits", adminToken, `{"amount":12.5,"reference":"top up"}`},
		{"/admin/members", adminToken, `{"msisdn":"` + member + `","firstname":"Amina","appInstalled":true}`},
		{"/admin/members", adminToken, `{"msisdn":"` + member + `","firstname":"Again"}`}, // a member already: 200
		{"/admin/organisations/" + a.ID + "/apiKeys", adminToken, ``},
		{"/webhooks", a.token, `{"url":"` + hookURL + `/2","events":["batch.closed"]}`},
		{"/webhooks/" + hook.ID + "/rotateSecret", a.token, ``},
		{"/webhooks/" + hook.ID + "/deliveries/" + deliveries[0].ID + "/retry", a.token, ``},
		{"/admin/webhooks/" + hook.ID + "/disable", adminToken, `{"reason":"maintenance"}`},
	} {
		// The claim is write 1, the work write 2, keeping the answer write 3.
		key := fmt.Sprintf("k-%d", i)
		base := faulty.writes.Load()
		faulty.fail = func(n int64) bool { return n == base+3 }
		first := h.sendKey("POST", tc.path, tc.token, key, tc.body)
		faulty.fail = nil
		if first.status/100 != 2 {
			t.Fatalf("POST %s: %d %s", tc.path, first.status, first.body)
		}
		if faulty.writes.Load() != base+3 {
			t.Fatalf("POST %s: %d writes, want 3", tc.path, faulty.writes.Load()-base)
		}
		sameAnswer(t, first, h.sendKey("POST", tc.path, tc.token, key, tc.body))
		var shown struct{ APIKey, Secret string }
		if err := json.Unmarshal(first.body, &shown); err != nil {
			t.Fatal(err)
		}
		if shown.APIKey != "" {
			h.token(shown.APIKey) // the key replayed is the key issued
			secrets = append(secrets, shown.APIKey)
		}
		if shown.Secret != "" {
			secrets = append(secrets, shown.Secret)
		}
	}
	if got := h.account(a); got.Balance != "12.50" {
		t.Errorf("balance %s, want 12.50: the deposit ran once", got.Balance)
	}
	if len(secrets) != 3 {
		t.Fatalf("%d secrets shown, want an API key and two webhook secrets", len(secrets))
	}
	for i, secret := range secrets {
		var want []string
		if i > 0 {
			want = []string{"webhook_endpoints"} // signs with it: kept as issued
		}
		if diff := cmp.Diff(want, tablesHolding(t, faulty.featureStore, secret)); diff != "" {
			t.Errorf("tables holding secret %d in clear (-want +got):\n%s", i, diff)
		}
	}
}

// tablesHolding lists the tables of the store's database that hold text
// in a column, in clear.
func tablesHolding(t *testing.T, store disburse.Store, text string) []string {
	t.Helper()
	ctx := t.Context()
	pools, ok := store.(interface{ Pools() map[string]*sql.DB })
	if !ok {
		t.Fatalf("%T has no pools to read", store)
	}
	db := pools.Pools()["write"]
	if db == nil {
		db = pools.Pools()["main"]
	}
	names, err := db.QueryContext(ctx, `SELECT name FROM sqlite_master WHERE type = 'table'`)
	if err != nil { // PostgreSQL
		names, err = db.QueryContext(ctx, `SELECT table_name FROM information_schema.tables
			WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`)
	}
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for names.Next() {
		var name string
		if err := names.Scan(&name); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, name)
	}
	if err := names.Err(); err != nil {
		t.Fatal(err)
	}
	var holding []string
	for _, table := range tables {
		rows, err := db.QueryContext(ctx, `SELECT * FROM `+table)
		if err != nil {
			t.Fatal(err)
		}
		cols, err := rows.Columns()
		if err != nil {
			t.Fatal(err)
		}
		found := false
		for rows.Next() {
			values := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range values {
				ptrs[i] = &values[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			for _, v := range values {
				switch v := v.(type) {
				case string:
					found = found || strings.Contains(v, text)
				case []byte:
					found = found || bytes.Contains(v, []byte(text))
				}
			}
		}
		if err := rows.Close(); err != nil {
			t.Fatal(err)
		}
		if found {
			holding = append(holding, table)
		}
	}
	return holding
}
