package usecasetest

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/sandbox"
)

// The rows a money transaction locks, in the one order every use case
// takes them (docs/ledger.md, "Lock order"): an OPEN batch's payments, then
// accounts (their balances, wallets created), then the batch itself.
const (
	lockPayments = "payments"
	lockAccounts = "accounts"
	lockBatch    = "batch"
)

var lockRank = map[string]int{lockPayments: 0, lockAccounts: 1, lockBatch: 2}

// lockLog records the locking calls of the last transaction a store ran.
type lockLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *lockLog) add(what string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, what)
}

func (l *lockLog) last() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.calls)
}

// lockRecorder is a store whose write transactions log every call that
// takes or needs a row lock: a lookup FOR UPDATE or a write.
type lockRecorder struct {
	disburse.Store
	log *lockLog
}

func (s lockRecorder) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	return s.Store.Write(ctx, func(tx disburse.Tx) error {
		s.log.mu.Lock()
		s.log.calls = nil // a retry starts over
		s.log.mu.Unlock()
		return fn(recordingTx{Tx: tx, log: s.log})
	})
}

type recordingTx struct {
	disburse.Tx
	log *lockLog
}

func (t recordingTx) LockBatch(ctx context.Context, id string) (disburse.Batch, error) {
	t.log.add(lockBatch)
	return t.Tx.LockBatch(ctx, id)
}

func (t recordingTx) UpdateBatch(ctx context.Context, b disburse.Batch) error {
	t.log.add(lockBatch)
	return t.Tx.UpdateBatch(ctx, b)
}

func (t recordingTx) AddToSummaries(ctx context.Context, ids []string, changes []disburse.Summary) ([]disburse.Batch, error) {
	t.log.add(lockBatch)
	return t.Tx.AddToSummaries(ctx, ids, changes)
}

func (t recordingTx) LockAccount(ctx context.Context, id string) (disburse.Account, error) {
	t.log.add(lockAccounts)
	return t.Tx.LockAccount(ctx, id)
}

func (t recordingTx) EnsureWallets(ctx context.Context, currency string, msisdns []string, now time.Time) (map[string]string, error) {
	t.log.add(lockAccounts)
	return t.Tx.EnsureWallets(ctx, currency, msisdns, now)
}

func (t recordingTx) EnsureSandboxWallets(ctx context.Context, organisationID, currency string, msisdns []string, now time.Time) (map[string]string, error) {
	t.log.add(lockAccounts)
	return t.Tx.EnsureSandboxWallets(ctx, organisationID, currency, msisdns, now)
}

func (t recordingTx) LockSandboxLegsTo(ctx context.Context, organisationID, msisdn string) ([]disburse.Payment, error) {
	t.log.add(lockPayments)
	return t.Tx.LockSandboxLegsTo(ctx, organisationID, msisdn)
}

func (t recordingTx) InsertTransfers(ctx context.Context, ts []disburse.Transfer) error {
	t.log.add(lockAccounts)
	return t.Tx.InsertTransfers(ctx, ts)
}

func (t recordingTx) ApplyBalances(ctx context.Context, changes disburse.BalanceChanges) error {
	t.log.add(lockAccounts)
	return t.Tx.ApplyBalances(ctx, changes)
}

func (t recordingTx) InsertMembersLockingLegs(ctx context.Context, ms []disburse.Member) (disburse.NewMembers, error) {
	t.log.add(lockPayments)
	return t.Tx.InsertMembersLockingLegs(ctx, ms)
}

func (t recordingTx) LockPendingLegsOf(ctx context.Context, batchID string) ([]disburse.Payment, error) {
	t.log.add(lockPayments)
	return t.Tx.LockPendingLegsOf(ctx, batchID)
}

func (t recordingTx) ClaimDueLegs(ctx context.Context, now time.Time, limit int) ([]disburse.Payment, error) {
	t.log.add(lockPayments)
	return t.Tx.ClaimDueLegs(ctx, now, limit)
}

// UpdatePaymentStates locks the payments it writes unless the transaction
// holds them already, as each use case does that locked them first.
func (t recordingTx) UpdatePaymentStates(ctx context.Context, ps []disburse.Payment) error {
	if !slices.Contains(t.log.last(), lockPayments) {
		t.log.add(lockPayments)
	}
	return t.Tx.UpdatePaymentStates(ctx, ps)
}

// testLockOrder: every use case that moves an OPEN batch's money
// (registration, reversal, cancel) locks payments, then accounts, then the
// batch, never back: two of them cannot each hold what the other waits for.
func testLockOrder(t *testing.T, open func(t *testing.T) disburse.Store) {
	log := &lockLog{}
	f := newFixture(t, lockRecorder{Store: open(t), log: log})
	inOrder := func(useCase string) {
		t.Helper()
		calls := log.last()
		for i := 1; i < len(calls); i++ {
			if lockRank[calls[i]] < lockRank[calls[i-1]] {
				t.Errorf("%s locks %s", useCase, strings.Join(calls, " → "))
				return
			}
		}
		if len(calls) == 0 {
			t.Errorf("%s: no locking call recorded", useCase)
		}
	}

	registered := f.batchOf(t, 5)
	if _, err := f.svc.Submit(f.ctx, f.org, registered); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee}); err != nil {
		t.Fatal(err)
	}
	inOrder("a registration")

	const other = msisdnKE2 // not a member: its legs stay pending
	cancelled := f.batchTo(t, other, 5)
	if _, err := f.svc.Submit(f.ctx, f.org, cancelled); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Cancel(f.ctx, f.org, cancelled); err != nil {
		t.Fatal(err)
	}
	inOrder("a cancel of an OPEN batch")

	reversed := f.batchTo(t, other, 5)
	if _, err := f.svc.Submit(f.ctx, f.org, reversed); err != nil {
		t.Fatal(err)
	}
	f.mu.Lock()
	f.now = f.now.Add(2 * time.Hour)
	f.mu.Unlock()
	if n, err := f.svc.ReverseDue(f.ctx); err != nil || n != 5 {
		t.Fatalf("ReverseDue = %d, %v; want 5", n, err)
	}
	inOrder("a reversal sweep")

	// A sandbox's registration and expire (docs/sandbox.md) keep the order too.
	sandboxOrg, _, err := organisations.Create(f.ctx, f.svc, organisations.NewOrganisation{Name: "Sandbox", Sandbox: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sandbox.Deposit(f.ctx, f.svc, sandboxOrg.ID, "", "1000", "KES", ""); err != nil {
		t.Fatal(err)
	}
	sb := &sandboxFixture{fixture: f, sandbox: sandboxOrg.ID}
	held := sb.submitted(t, sandboxOrg.ID, racePayee, other)
	if _, err := sandbox.RegisterMember(f.ctx, f.svc, sandboxOrg.ID, racePayee); err != nil {
		t.Fatal(err)
	}
	inOrder("a sandbox's registration")
	if _, _, err := sandbox.ExpireBatch(f.ctx, f.svc, sandboxOrg.ID, held); err != nil {
		t.Fatal(err)
	}
	inOrder("a sandbox's expire")
	f.checkLedger(t)
}
