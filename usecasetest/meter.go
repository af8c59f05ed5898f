package usecasetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// RunMeter checks what the use cases tell the Meter (disburse.Meter, the
// operator's money counters, docs/operations.md "Metrics"): the money each
// committed transaction moved, by kind and currency, and its payments by
// outcome, across a submit to members and non-members with a referral, a
// registration, a cancel of an OPEN batch and of a DRAFT one, and a
// reversal; nothing for a transaction that rolled back, once for one the
// store ran twice. RunDelivery counts the notifications' attempts.
func RunMeter(t *testing.T, open func(t *testing.T) disburse.Store) {
	tests := []struct {
		name string
		run  func(*testing.T, disburse.Store)
	}{
		{"MoneyMovedByKind", testMoneyMovedByKind},
		{"OnlyWhatCommitted", testOnlyWhatCommitted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// meterRecord is a disburse.Meter that sums what it is told.
type meterRecord struct {
	mu       sync.Mutex
	calls    int
	money    map[string]disburse.Money // "kind currency"
	payments map[disburse.MoveKind]int64
}

func newMeterRecord() *meterRecord {
	return &meterRecord{money: map[string]disburse.Money{}, payments: map[disburse.MoveKind]int64{}}
}

func (m *meterRecord) Moved(moves []disburse.Movement) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	for _, mv := range moves {
		if mv.Amount != 0 {
			m.money[string(mv.Kind)+" "+mv.Currency] += mv.Amount
		}
		if mv.Payments != 0 {
			m.payments[mv.Kind] += mv.Payments
		}
	}
}

// check compares the sums with want, and the number of Moved calls.
func (m *meterRecord) check(t *testing.T, calls int, money map[string]disburse.Money, payments map[disburse.MoveKind]int64) {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.calls != calls {
		t.Errorf("Moved called %d times, want %d (once per committed transaction that moved something)", m.calls, calls)
	}
	if diff := cmp.Diff(money, m.money); diff != "" {
		t.Errorf("money moved (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(payments, m.payments); diff != "" {
		t.Errorf("payments by outcome (-want +got):\n%s", diff)
	}
}

// batchOfPayments creates a DRAFT batch of the payments.
func (f *fixture) batchOfPayments(t *testing.T, in ...disburse.PaymentInput) string {
	t.Helper()
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "meter"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	return b.ID
}

func testMoneyMovedByKind(t *testing.T, store disburse.Store) {
	f := newFixture(t, store)
	on := true
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, f.org, organisations.Settings{ReferralsEnabled: &on}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdnKE}); err != nil {
		t.Fatal(err)
	}
	m := newMeterRecord()
	f.svc.Meter = m

	// A member's payment (settled) with a non-member's referral (held: its
	// money, not a payment), and a non-member's payment (held).
	a := f.batchOfPayments(t,
		disburse.PaymentInput{Msisdn: msisdnKE, Amount: "10.00", ReferralMsisdn: msisdnKE3, ReferralAmount: "2.00"},
		disburse.PaymentInput{Msisdn: msisdnKE2, Amount: "5.00"})
	if _, err := f.svc.Submit(f.ctx, f.org, a); err != nil {
		t.Fatal(err)
	}
	m.check(t, 1, map[string]disburse.Money{"settled KES": 1000, "held KES": 700},
		map[disburse.MoveKind]int64{disburse.MoveSettled: 1, disburse.MoveHeld: 1})

	// The non-member registers: the 5.00 settles.
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdnKE2}); err != nil {
		t.Fatal(err)
	}
	// The OPEN batch is cancelled: the referral's 2.00 goes back; its
	// payment leg was settled, so no payment is cancelled.
	if _, err := f.svc.Cancel(f.ctx, f.org, a); err != nil {
		t.Fatal(err)
	}
	// A non-member's 10.00 held, then reversed after the period.
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.advance(2 * time.Hour)
	if n, err := f.svc.ReverseDue(f.ctx); err != nil || n != 1 {
		t.Fatalf("ReverseDue: %d, %v; want 1", n, err)
	}
	// A DRAFT batch cancelled: a payment cancelled, no money moved.
	if _, err := f.svc.Cancel(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	m.check(t, 6,
		map[string]disburse.Money{"settled KES": 1500, "held KES": 1700, "reversed KES": 1000, "cancelled KES": 200},
		map[disburse.MoveKind]int64{disburse.MoveSettled: 2, disburse.MoveHeld: 2, disburse.MoveReversed: 1, disburse.MoveCancelled: 1})
	f.checkLedger(t)
}

// errRolledBack is the failure rollingStore injects after the work ran.
var errRolledBack = errors.New("injected: rolled back after the work ran")

// rollingStore rolls back the next write after its work has run in full:
// then, when again is set, runs the work once more and commits it (as the
// store does after a deadlock), else fails.
type rollingStore struct {
	disburse.Store
	mu    sync.Mutex
	armed bool
	again bool
}

func (s *rollingStore) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	s.mu.Lock()
	armed := s.armed
	s.armed = false
	s.mu.Unlock()
	if !armed {
		return s.Store.Write(ctx, fn)
	}
	err := s.Store.Write(ctx, func(tx disburse.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return errRolledBack
	})
	if !errors.Is(err, errRolledBack) || !s.again {
		return err
	}
	return s.Store.Write(ctx, fn)
}

func (s *rollingStore) arm(again bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.armed, s.again = true, again
}

func testOnlyWhatCommitted(t *testing.T, store disburse.Store) {
	f := newFixture(t, store)
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdnKE}); err != nil {
		t.Fatal(err)
	}
	rolling := &rollingStore{Store: store}
	f.svc.Store = rolling
	m := newMeterRecord()
	f.svc.Meter = m
	in := []disburse.PaymentInput{{Msisdn: msisdnKE, Amount: "10.00"}, {Msisdn: msisdnKE2, Amount: "5.00"}}

	// Rolled back: nothing counted, and the batch is still DRAFT.
	b := f.batchOfPayments(t, in...)
	rolling.arm(false)
	if _, err := f.svc.Submit(f.ctx, f.org, b); !errors.Is(err, errRolledBack) {
		t.Fatalf("submit: %v, want the injected rollback", err)
	}
	m.check(t, 0, map[string]disburse.Money{}, map[disburse.MoveKind]int64{})
	if got, err := f.svc.Batch(f.ctx, f.org, b); err != nil || got.Status != disburse.BatchDraft {
		t.Fatalf("batch after the rollback: %v, %v; want DRAFT", got.Status, err)
	}

	// Run twice, committed once: counted once.
	rolling.arm(true)
	if _, err := f.svc.Submit(f.ctx, f.org, b); err != nil {
		t.Fatal(err)
	}
	m.check(t, 1, map[string]disburse.Money{"settled KES": 1000, "held KES": 500},
		map[disburse.MoveKind]int64{disburse.MoveSettled: 1, disburse.MoveHeld: 1})

	// A cancel rolled back, then a registration and a reversal run twice.
	rolling.arm(false)
	if _, err := f.svc.Cancel(f.ctx, f.org, b); !errors.Is(err, errRolledBack) {
		t.Fatalf("cancel: %v, want the injected rollback", err)
	}
	rolling.arm(true)
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdnKE2}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.advance(2 * time.Hour)
	rolling.arm(true)
	if n, err := f.svc.ReverseDue(f.ctx); err != nil || n != 1 {
		t.Fatalf("ReverseDue: %d, %v; want 1", n, err)
	}
	m.check(t, 4, map[string]disburse.Money{"settled KES": 1500, "held KES": 1500, "reversed KES": 1000},
		map[disburse.MoveKind]int64{disburse.MoveSettled: 2, disburse.MoveHeld: 2, disburse.MoveReversed: 1})
	f.checkLedger(t)
}
