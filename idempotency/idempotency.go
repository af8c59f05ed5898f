// Package idempotency runs Idempotency-Keys (docs/idempotency.md): a
// request that carries one runs once; a retry with the same key and the
// same request gets the first answer back. The claim on the key is taken
// in a short transaction of its own (Store), so that a second request
// sees it in flight; the work's own transaction marks the key done and
// keeps the answer made from what it wrote (or, for a submit, a reference
// to rebuild it from), so that the key, its answer and the work commit
// together or not at all. The answer the handler wrote is kept again just
// after. The money transaction's port (disburse.Tx) holds only those two
// marks; everything else about keys is here, beside the domain.
package idempotency

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse"
)

// OperatorScope is the scope of the operator API's keys; an organisation's
// keys are scoped to its id.
const OperatorScope = "operator"

// Retention is how long a key is kept before the sweep deletes it.
const Retention = 24 * time.Hour

// DefaultLease is the longest a request may hold its key when nothing
// says otherwise: past it, the request is taken for stalled, its claim is
// no longer renewed, and a retry may run in its place.
const DefaultLease = 10 * time.Minute

// ClaimExpiry is how long a claim holds without being renewed: the
// process that holds it renews the claims of its running requests every
// third of it (Keys.Renew), so that a claim whose process died, or whose
// request ended without writing its release, is free again on every
// replica within about ClaimExpiry, while a request of a process that
// lives keeps its key up to its lease.
const ClaimExpiry = 15 * time.Second

// renewBatch bounds the claims one statement of Keys.Renew renews.
const renewBatch = 200

// MaxKeyLen is the longest Idempotency-Key accepted.
const MaxKeyLen = 255

// The codes of an Idempotency-Key that cannot be used (docs/api.md section 2).
const (
	CodeKeyReused  disburse.Code = "idempotency_key_reused"  // 422: the key was used for another request
	CodeInProgress disburse.Code = "idempotency_in_progress" // 409: the key's first request still runs
)

// purgeBatchSize bounds one transaction of Purge, as the domain's purges
// bound theirs: a sweep never holds its locks long.
const purgeBatchSize = 1000

// ValidKey checks a key: 1 to 255 printable ASCII characters.
func ValidKey(key string) error {
	bad := len(key) == 0 || len(key) > MaxKeyLen
	for i := 0; i < len(key) && !bad; i++ {
		bad = key[i] < 0x20 || key[i] > 0x7e
	}
	if bad {
		return disburse.Invalid("Idempotency-Key", key, "the Idempotency-Key header must be 1 to 255 printable ASCII characters")
	}
	return nil
}

// Request is a request that carries an Idempotency-Key.
type Request struct {
	Scope        string // OperatorScope, or the organisation's id
	Key          string // the header as sent
	Method, Path string
	Body         []byte
	// RefKind and RefID, when set, name what a replay rebuilds the answer
	// from instead of keeping it (a submit's: every payment of the batch).
	RefKind, RefID string
	// Lease is the longest the request may hold its key while its process
	// renews the claim; 0 means DefaultLease.
	Lease time.Duration
	// Render, when set, makes the request's answer from what its
	// transaction wrote, so that the answer is kept in that transaction:
	// a process that stops after the commit leaves a key that replays.
	// It reports false when what was written does not make an answer:
	// a request with a RefKind then commits, its answer rebuilt on
	// replay (a submit that paid, where one that requested an approval
	// keeps its answer); one without fails rather than commit without
	// an answer. A request needs Render or RefKind: a key done with
	// neither is an internal error on replay.
	Render func(Written) (Answer, bool)
}

// Written is what a claimed request's transaction wrote, in the order it
// wrote it: what Render makes the answer of.
type Written struct {
	Batch        *disburse.Batch // the last batch inserted or updated
	Payments     []disburse.Payment
	Organisation *disburse.Organisation
	Accounts     []disburse.Account
	Transfers    []disburse.Transfer
	// Member is the member registered: the one inserted, or, when the
	// msisdn was a member already (MemberExisted), the one read back.
	Member        *disburse.Member
	MemberExisted bool
	// Approval is the approval requested or decided, the last written.
	Approval *disburse.Approval
	// SandboxMember is a sandbox's payee registered (docs/sandbox.md): the
	// one inserted, with how many payments it settled, or the one read
	// back when it was registered already.
	SandboxMember *disburse.SandboxRegistration
	// Feature is what the use case of a package beside the domain wrote
	// through its own transaction port (Claim.Keep), for that package's
	// renderers: the webhooks package's endpoint or delivery, package auth's
	// API key (with its Secret in clear: the answer, which is sealed, is
	// the one place it is kept).
	Feature any
}

// Claim is a request's hold on its key: Keys.Claimed runs the request's
// work under it, Keys.Finish keeps its answer.
type Claim struct {
	hold           disburse.IdempotencyHold
	seal           [32]byte // the answer's sealing key, from the key itself
	refKind, refID string
	render         func(Written) (Answer, bool)
	claimedAt      time.Time
}

// Answer is what a request answered, as an idempotent replay returns it.
type Answer struct {
	Status int
	Header map[string]string // the headers that matter: Content-Type, Location, ...
	Body   []byte
	// Rebuilt, when the request named a RefKind, reports that the body
	// is rebuilt on replay, so that only the status and headers are kept.
	Rebuilt bool
}

// Replay is the answer a key already has. When RefKind is set the body is
// to be rebuilt from RefKind and RefID (Status and Header may then be
// empty, when the process stopped before keeping them).
type Replay struct {
	Answer
	RefKind, RefID string
}

var errTakenOver = disburse.Errorf(CodeInProgress, "another request with this Idempotency-Key took over after this one ran past its time")

// errNoAnswer fails a claimed request's transaction whose route could not
// make its answer from what it wrote: its work rolls back with its key,
// rather than commit a key that would replay nothing.
var errNoAnswer = errors.New("idempotency: no answer made from what the transaction wrote")

// errDoneUnanswered is a key done with neither an answer nor a reference,
// which no request commits (claimStore.Write).
var errDoneUnanswered = errors.New("idempotency: a key done without an answer or a reference to rebuild it from")

// Keys claims, seals and replays the Idempotency-Keys of one Service's
// requests. It reads the Service's Clock, so that a test that moves the
// clock moves the keys' leases and retention with it.
type Keys struct {
	svc   *disburse.Service
	store Store
	// instance prefixes the owner of every claim these Keys make, so that
	// a retry here can tell a claim of its own process from another's.
	instance string
	// running holds this process's claims whose request has not
	// finished, each until the end of its lease: a claim of this process
	// that is not here belongs to a request that is over, and a retry
	// need not wait out its expiry; one that is here is renewed.
	mu      sync.Mutex
	running map[string]runningClaim
	// renewing reports that the loop renewing running's claims runs.
	renewing bool
}

// runningClaim is a claim of this process whose request runs.
type runningClaim struct {
	hold  disburse.IdempotencyHold
	until time.Time // the end of its lease: it is not renewed past it
}

// New returns the Keys of svc's requests, kept in store: the caller that
// opened svc's store hands over its Idempotency-Key store with it.
func New(svc *disburse.Service, store Store) *Keys {
	return &Keys{svc: svc, store: store, instance: disburse.NewID(), running: map[string]runningClaim{}}
}

// ownerSep ends the instance part of a claim's owner.
const ownerSep = "/"

// holder is what these Keys know of the request of owner at now: over
// (it claimed here and has finished), or alive (it runs here, within its
// lease), or neither (another process's, known only by its expiry).
func (k *Keys) holder(owner string, now time.Time) (over, alive bool) {
	inst, _, ok := strings.Cut(owner, ownerSep)
	if !ok || inst != k.instance {
		return false, false
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	r, running := k.running[owner]
	return !running, running && r.until.After(now)
}

// setRunning notes that h's request runs until the end of its lease, and
// starts the loop that renews its claim when none runs.
func (k *Keys) setRunning(h disburse.IdempotencyHold, until time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.running[h.Owner] = runningClaim{hold: h, until: until}
	if !k.renewing {
		k.renewing = true
		go k.renewLoop()
	}
}

// setFinished notes that owner's request has finished.
func (k *Keys) setFinished(owner string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.running, owner)
}

// renewLoop renews the running claims every third of ClaimExpiry, and
// ends when none is left. A renewal that fails (the database out of
// reach) is tried again at the next tick; meanwhile the claims expire as
// a dead process's would, and their requests' marks then fail if a retry
// took them over.
func (k *Keys) renewLoop() {
	tick := time.NewTicker(ClaimExpiry / 3)
	defer tick.Stop()
	for range tick.C {
		k.mu.Lock()
		if len(k.running) == 0 {
			k.renewing = false
			k.mu.Unlock()
			return
		}
		k.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), ClaimExpiry/3)
		if err := k.Renew(ctx); err != nil && k.svc.Log != nil {
			k.svc.Log.WarnContext(ctx, "renewing idempotency claims failed", "err", err)
		}
		cancel()
	}
}

// Renew extends the expiry of this process's running claims to
// ClaimExpiry from now, in one transaction, but not past the end of a
// claim's lease: a request that runs past its lease loses its key within
// ClaimExpiry. The renewal loop calls it; a test may call it for a tick.
func (k *Keys) Renew(ctx context.Context) error {
	now := k.now()
	leaseUntil := now.Add(ClaimExpiry)
	var holds []disburse.IdempotencyHold
	k.mu.Lock()
	for _, r := range k.running {
		if !r.until.Before(leaseUntil) {
			holds = append(holds, r.hold)
		}
	}
	k.mu.Unlock()
	if len(holds) == 0 {
		return nil
	}
	return k.store.Write(ctx, func(tx Tx) error {
		for part := range slices.Chunk(holds, renewBatch) {
			if err := tx.RenewIdempotencyKeys(ctx, part, leaseUntil); err != nil {
				return err
			}
		}
		return nil
	})
}

// now is the time of one use of a key, as the Service reads its own: in
// UTC, to the microsecond the stores keep.
func (k *Keys) now() time.Time {
	return k.svc.Clock().UTC().Truncate(time.Microsecond)
}

// Begin claims req's key for this request (a nil Replay), or returns the
// answer the key already has, or fails: 422 for a key used with another
// request, 409 while the key's first request still runs.
func (k *Keys) Begin(ctx context.Context, req Request) (*Claim, *Replay, error) {
	if err := ValidKey(req.Key); err != nil {
		return nil, nil, err
	}
	lease := req.Lease
	if lease <= 0 {
		lease = DefaultLease
	}
	c := &Claim{hold: disburse.IdempotencyHold{Scope: req.Scope, KeyHash: hashed("key", req.Key), Owner: k.instance + ownerSep + disburse.NewID()},
		refKind: req.RefKind, refID: req.RefID, render: req.Render}
	c.seal = sha256.Sum256([]byte("disburse idempotency answer\x00" + req.Scope + "\x00" + req.Key))
	bodyHash := sha256.Sum256(req.Body)
	fingerprint := hashed("request", req.Method+"\x00"+req.Path+"\x00"+req.Scope+"\x00"+hex.EncodeToString(bodyHash[:]))
	now := k.now()
	c.claimedAt = now
	expiry := now.Add(min(lease, ClaimExpiry))
	fresh := Key{Scope: c.hold.Scope, KeyHash: c.hold.KeyHash, Fingerprint: fingerprint, Owner: c.hold.Owner, LeaseUntil: expiry, CreatedAt: now}
	// Running from before the claim commits: a claim in the database is
	// never taken for a finished request's while its request runs.
	k.setRunning(c.hold, now.Add(lease))
	for attempt := 1; ; attempt++ {
		var replay *Replay
		err := k.store.Write(ctx, func(tx Tx) error {
			var err error
			replay, err = c.claim(ctx, tx, fresh, fingerprint, expiry, k.holder)
			return err
		})
		// Two first requests raced to insert the key: look again, to tell
		// the loser the winner is in flight.
		if errors.Is(err, disburse.ErrDuplicate) && attempt < 3 {
			continue
		}
		if err != nil || replay != nil {
			k.setFinished(c.hold.Owner)
			return nil, replay, err
		}
		return c, nil, nil
	}
}

// claim takes c's key in tx: fresh when no one holds it, or a dead
// request's, until leaseUntil; or returns the answer it already has.
// A key whose work committed (done) answers at once, whatever its expiry:
// the work is there to replay. A key whose work has not committed is in
// flight while its holder may still be running: holder says what this
// process knows of it (a request of its own that is over, its outcome in
// doubt and its release not written; or one still running, within its
// lease, whose renewal may be late); another process's holds until its
// claim's expiry, which that process renews while the request runs.
func (c *Claim) claim(ctx context.Context, tx Tx, fresh Key, fingerprint string, leaseUntil time.Time, holder func(owner string, now time.Time) (over, alive bool)) (*Replay, error) {
	now := fresh.CreatedAt
	k, err := tx.LockIdempotencyKey(ctx, c.hold.Scope, c.hold.KeyHash)
	switch {
	case errors.Is(err, disburse.ErrNotFound):
		return nil, tx.InsertIdempotencyKey(ctx, fresh)
	case err != nil:
		return nil, err
	case !k.CreatedAt.After(now.Add(-Retention)): // kept past its time, not swept yet
		if err := tx.DeleteIdempotencyKey(ctx, c.hold.Scope, c.hold.KeyHash); err != nil {
			return nil, err
		}
		return nil, tx.InsertIdempotencyKey(ctx, fresh)
	case k.Fingerprint != fingerprint:
		return nil, disburse.Errorf(CodeKeyReused, "this Idempotency-Key was used with another request; use a new key for a new request")
	case k.Status != 0 || k.Done && k.RefKind != "":
		return c.open(k)
	case k.Done:
		return nil, errDoneUnanswered
	case inFlight(k, now, holder):
		return nil, disburse.Errorf(CodeInProgress, "a request with this Idempotency-Key is still running; retry once it has answered")
	default: // its request ended before its work committed: run it here
		return nil, tx.TakeOverIdempotencyKey(ctx, c.hold, leaseUntil)
	}
}

// inFlight reports whether the request holding k, not done, may still run.
func inFlight(k Key, now time.Time, holder func(owner string, now time.Time) (over, alive bool)) bool {
	over, alive := holder(k.Owner, now)
	return alive || k.LeaseUntil.After(now) && !over
}

// Claimed returns a copy of the Service whose every write transaction
// first marks c's key done: the work and the key commit together, and a
// request whose claim was taken over by a retry commits nothing. It is the
// Service a handler runs its one use case with. A registration with a key
// runs in a transaction of its own, the one that answers the key, not in
// a group with others (disburse.Service.WithStore).
func (k *Keys) Claimed(c *Claim) *disburse.Service {
	return k.svc.WithStore(claimStore{Store: k.svc.Store, c: c})
}

// claimStore is a disburse.Store whose writes carry a claim.
type claimStore struct {
	disburse.Store
	c *Claim
}

// Write runs fn in a transaction that marks the claim's key done first
// and, when the claim renders its answer, keeps that answer last.
func (cs claimStore) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	return cs.Store.Write(ctx, func(tx disburse.Tx) error {
		return cs.c.Keep(ctx, tx, func(w *Written) error {
			if cs.c.render == nil {
				return fn(tx)
			}
			wt := &writtenTx{Tx: tx}
			err := fn(wt)
			*w = wt.written
			return err
		})
	})
}

// Keep runs work, a claimed request's write, inside tx: first it marks c's
// key done, then work notes in its Written what it wrote, and the answer
// c's Render makes of that is kept with the key. The key, its answer and
// the work commit together or not at all. Claimed's Service does this for
// the domain's use cases; a package with a transaction port of its own
// (webhooks) calls it with that port's transaction, which marks keys too.
func (c *Claim) Keep(ctx context.Context, tx disburse.IdempotencyMarks, work func(*Written) error) error {
	if c.render == nil && c.refKind == "" {
		return errNoAnswer // neither kept nor rebuilt: nothing to replay
	}
	// First, so that on PostgreSQL the key's row stays locked until the
	// work commits: a retry that finds the lease over waits for it.
	if err := tx.MarkIdempotencyKeyDone(ctx, c.hold, c.refKind, c.refID); err != nil {
		if errors.Is(err, disburse.ErrNotFound) {
			return errTakenOver
		}
		return err
	}
	var w Written
	if err := work(&w); err != nil {
		return err
	}
	if c.render == nil {
		return nil
	}
	a, ok := c.render(w)
	if !ok && c.refKind != "" {
		return nil // done with its reference: the answer is rebuilt on replay
	}
	if !ok {
		// The key commits with its answer or not at all: a key done
		// without one could replay nothing.
		return errNoAnswer
	}
	sealed, err := c.sealAnswer(a.Header, a.Body)
	if err != nil {
		return err
	}
	return tx.AnswerIdempotencyKey(ctx, c.hold, a.Status, sealed, c.claimedAt)
}

// writtenTx is a Tx that notes what a claimed request writes, for Render.
// Where a use case reads back what it wrote (a member registered
// already), the read after the write is noted too.
type writtenTx struct {
	disburse.Tx
	written    Written
	registered string // the msisdn an InsertMembers found a member already
}

func (w *writtenTx) InsertBatch(ctx context.Context, b disburse.Batch) error {
	err := w.Tx.InsertBatch(ctx, b)
	if err == nil {
		w.written.Batch = &b
	}
	return err
}

func (w *writtenTx) UpdateBatch(ctx context.Context, b disburse.Batch) error {
	err := w.Tx.UpdateBatch(ctx, b)
	if err == nil {
		w.written.Batch = &b
	}
	return err
}

func (w *writtenTx) InsertPayments(ctx context.Context, ps []disburse.Payment) error {
	err := w.Tx.InsertPayments(ctx, ps)
	if err == nil {
		w.written.Payments = append(w.written.Payments, ps...)
	}
	return err
}

func (w *writtenTx) InsertPaymentsAsReady(ctx context.Context, ps []disburse.Payment, ready func() (int, error)) error {
	err := w.Tx.InsertPaymentsAsReady(ctx, ps, ready)
	if err == nil {
		w.written.Payments = append(w.written.Payments, ps...)
	}
	return err
}

func (w *writtenTx) InsertOrganisation(ctx context.Context, o disburse.Organisation) error {
	err := w.Tx.InsertOrganisation(ctx, o)
	if err == nil {
		w.written.Organisation = &o
	}
	return err
}

func (w *writtenTx) InsertAccount(ctx context.Context, a disburse.Account) error {
	err := w.Tx.InsertAccount(ctx, a)
	if err == nil {
		w.written.Accounts = append(w.written.Accounts, a)
	}
	return err
}

func (w *writtenTx) InsertTransfers(ctx context.Context, ts []disburse.Transfer) error {
	err := w.Tx.InsertTransfers(ctx, ts)
	if err == nil {
		w.written.Transfers = append(w.written.Transfers, ts...)
	}
	return err
}

func (w *writtenTx) InsertMembersLockingLegs(ctx context.Context, ms []disburse.Member) (disburse.NewMembers, error) {
	found, err := w.Tx.InsertMembersLockingLegs(ctx, ms)
	if err != nil || len(ms) != 1 { // a claimed registration registers one
		return found, err
	}
	if m := ms[0]; found.Inserted[m.Msisdn] {
		w.written.Member = &m
	} else {
		w.registered = m.Msisdn
	}
	return found, nil
}

// Members notes the member read back after an insert found it registered.
func (w *writtenTx) Members(ctx context.Context, msisdns []string) (map[string]disburse.Member, error) {
	ms, err := w.Tx.Members(ctx, msisdns)
	if m, ok := ms[w.registered]; ok && err == nil && w.written.Member == nil {
		w.written.Member, w.written.MemberExisted = &m, true
	}
	return ms, err
}

func (w *writtenTx) InsertSandboxMember(ctx context.Context, m disburse.SandboxMember) (bool, error) {
	created, err := w.Tx.InsertSandboxMember(ctx, m)
	if err == nil {
		w.written.SandboxMember = &disburse.SandboxRegistration{Member: m, Created: created}
	}
	return created, err
}

// SandboxMember notes the member read back after an insert found it registered.
func (w *writtenTx) SandboxMember(ctx context.Context, organisationID, msisdn string) (disburse.SandboxMember, error) {
	m, err := w.Tx.SandboxMember(ctx, organisationID, msisdn)
	if err == nil && w.written.SandboxMember != nil {
		w.written.SandboxMember.Member = m
	}
	return m, err
}

// LockSandboxLegsTo notes how many payments the registration settles.
func (w *writtenTx) LockSandboxLegsTo(ctx context.Context, organisationID, msisdn string) ([]disburse.Payment, error) {
	legs, err := w.Tx.LockSandboxLegsTo(ctx, organisationID, msisdn)
	if err == nil && w.written.SandboxMember != nil {
		w.written.SandboxMember.Settled = disburse.PaymentsPendingTo(legs, msisdn)
	}
	return legs, err
}

func (w *writtenTx) InsertApproval(ctx context.Context, a disburse.Approval) error {
	err := w.Tx.InsertApproval(ctx, a)
	if err == nil {
		w.written.Approval = &a
	}
	return err
}

func (w *writtenTx) UpdateApproval(ctx context.Context, a disburse.Approval) error {
	err := w.Tx.UpdateApproval(ctx, a)
	if err == nil {
		w.written.Approval = &a
	}
	return err
}

// Finish keeps a's answer with c's key. A 5xx answer is not kept: the key
// is released, so that a retry runs again, unless the work had committed.
func (k *Keys) Finish(ctx context.Context, c *Claim, a Answer) error {
	// The request is over, whatever becomes of its answer: a retry here
	// may take a claim whose release below cannot be written.
	k.setFinished(c.hold.Owner)
	now := k.now()
	var sealed []byte
	if a.Status < 500 {
		body := a.Body
		if a.Rebuilt {
			body = nil
		}
		var err error
		if sealed, err = c.sealAnswer(a.Header, body); err != nil {
			return err
		}
	}
	err := k.store.Write(ctx, func(tx Tx) error {
		if a.Status >= 500 {
			return tx.ReleaseIdempotencyKey(ctx, c.hold, now)
		}
		return tx.AnswerIdempotencyKey(ctx, c.hold, a.Status, sealed, now)
	})
	if errors.Is(err, disburse.ErrNotFound) {
		return nil // taken over: the request that took it keeps its own answer
	}
	return err
}

// Purge deletes the keys past Retention; the worker calls it every
// interval. It returns how many it deleted.
func (k *Keys) Purge(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		var n int
		err := k.store.Write(ctx, func(tx Tx) (err error) {
			n, err = tx.DeleteIdempotencyKeysBefore(ctx, k.now().Add(-Retention), purgeBatchSize)
			return err
		})
		total += n
		if err != nil || n < purgeBatchSize {
			return total, err
		}
	}
	return total, nil
}

// hashed is the hex SHA-256 of a value, named by what it is for.
func hashed(what, v string) string {
	h := sha256.Sum256([]byte("disburse idempotency " + what + "\x00" + v))
	return hex.EncodeToString(h[:])
}

// sealAnswer encrypts an answer's headers and body with the claim's key,
// which only the Idempotency-Key derives: the stored answers (balances,
// an API key once) cannot be read from the database alone.
func (c *Claim) sealAnswer(header map[string]string, body []byte) ([]byte, error) {
	h, err := json.Marshal(header)
	if err != nil {
		return nil, err
	}
	plain := binary.BigEndian.AppendUint32(nil, uint32(len(h)))
	plain = append(append(plain, h...), body...)
	aead, err := c.aead()
	if err != nil {
		return nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	_, _ = rand.Read(nonce) // crypto/rand.Read never fails
	return aead.Seal(nonce, nonce, plain, c.sealedFor()), nil
}

// open returns k's answer as a Replay.
func (c *Claim) open(k Key) (*Replay, error) {
	r := &Replay{Answer: Answer{Status: k.Status}, RefKind: k.RefKind, RefID: k.RefID}
	if k.Status == 0 {
		return r, nil
	}
	aead, err := c.aead()
	if err != nil {
		return nil, err
	}
	n := aead.NonceSize()
	if len(k.Answer) < n {
		return nil, fmt.Errorf("idempotency answer: sealed answer too short")
	}
	plain, err := aead.Open(nil, k.Answer[:n], k.Answer[n:], c.sealedFor())
	if err != nil {
		return nil, fmt.Errorf("idempotency answer: %w", err)
	}
	if len(plain) < 4 || int(binary.BigEndian.Uint32(plain)) > len(plain)-4 {
		return nil, fmt.Errorf("idempotency answer: malformed")
	}
	hl := int(binary.BigEndian.Uint32(plain))
	if err := json.Unmarshal(plain[4:4+hl], &r.Header); err != nil {
		return nil, fmt.Errorf("idempotency answer: %w", err)
	}
	r.Body = plain[4+hl:]
	return r, nil
}

// sealedFor is the data an answer is sealed with: the key's row, so that
// an answer copied into another row does not open.
func (c *Claim) sealedFor() []byte {
	return []byte(c.hold.Scope + "\x00" + c.hold.KeyHash)
}

// aead is the cipher of c's answers, keyed from the Idempotency-Key.
func (c *Claim) aead() (cipher.AEAD, error) {
	block, err := aes.NewCipher(c.seal[:])
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
