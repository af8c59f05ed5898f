package usecasetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/organisations"
)

// RunConcurrency races the money use cases against each other on one store
// (docs/api.md section 6, "Races"): whoever wins, each leg is settled or
// reversed exactly once and the ledger stays sound. Each test runs in
// parallel on a store of its own.
func RunConcurrency(t *testing.T, open func(t *testing.T) disburse.Store) {
	tests := []struct {
		name string
		run  func(*testing.T, func(t *testing.T) disburse.Store)
	}{
		{"LockOrder", testLockOrder},
		{"RegistrationDuringSubmit", testRegistrationDuringSubmit},
		{"AddRunAgain", testAddRunAgain},
		{"ManyRegistrationsAtOnce", testManyRegistrationsAtOnce},
		{"TenSubmitsOfOneBatch", testTenSubmitsOfOneBatch},
		{"RegistrationRacesReversal", testRegistrationRacesReversal},
		{"RegistrationRacesCancel", testRegistrationRacesCancel},
		{"CancelRacesRegistrationsAndReversal", testCancelRacesRegistrationsAndReversal},
		{"OneExternalIDRacesIntoManyBatches", testOneExternalIDRacesIntoManyBatches},
		{"SubmitRacesCancel", testSubmitRacesCancel},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open)
		})
	}
}

// testTenSubmitsOfOneBatch: of ten submits of one batch at once, one
// succeeds and nine answer invalid_state.
func testTenSubmitsOfOneBatch(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newFixture(t, open(t))
	b := f.batchOf(t, 20)
	errs := f.race(10, func(int) error { _, err := f.svc.Submit(f.ctx, f.org, b); return err })
	ok, conflicts := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case disburse.ErrorCode(err) == disburse.CodeInvalidState:
			conflicts++
		default:
			t.Errorf("submit: unexpected error %v", err)
		}
	}
	if ok != 1 || conflicts != 9 {
		t.Errorf("got %d successes and %d conflicts, want 1 and 9", ok, conflicts)
	}
	f.checkLedger(t)
}

// testRegistrationRacesReversal: registrations and reversal sweeps race
// for the same due legs; each leg ends settled or reversed, once.
func testRegistrationRacesReversal(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newFixture(t, open(t))
	b := f.batchOf(t, 30)
	if _, err := f.svc.Submit(f.ctx, f.org, b); err != nil {
		t.Fatal(err)
	}
	f.now = f.now.Add(2 * time.Hour) // every leg is due for reversal
	errs := f.race(4, func(i int) error {
		if i%2 == 0 {
			_, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee})
			return err
		}
		_, err := f.svc.ReverseDue(f.ctx)
		return err
	})
	for _, err := range errs {
		if err != nil {
			t.Errorf("unexpected error %v", err)
		}
	}
	batch, err := f.svc.Batch(f.ctx, f.org, b)
	if err != nil || batch.Status != disburse.BatchClosed {
		t.Errorf("batch %v %v, want CLOSED", batch.Status, err)
	}
	s := batch.Summary
	if s.SettledCount+s.CancelledCount != 30 || s.PendingCount != 0 {
		t.Errorf("summary %+v: want every leg resolved once", s)
	}
	f.checkSettled(t, s.SettledCount)
}

// testRegistrationRacesCancel: a registration locks its batch only at the
// end (resolve); a cancel locks it first. Either wins whole: every leg
// settled and the batch CLOSED (the cancel then refused), or every leg
// returned and the batch CANCELLED.
func testRegistrationRacesCancel(t *testing.T, open func(t *testing.T) disburse.Store) {
	for range testenv.Pick(2, 5) { // rounds: more find rarer interleavings
		f := newFixture(t, open(t))
		b := f.batchOf(t, 30)
		if _, err := f.svc.Submit(f.ctx, f.org, b); err != nil {
			t.Fatal(err)
		}
		errs := f.race(2, func(i int) error {
			if i == 0 {
				_, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee})
				return err
			}
			_, err := f.svc.Cancel(f.ctx, f.org, b)
			return err
		})
		if errs[0] != nil || (errs[1] != nil && disburse.ErrorCode(errs[1]) != disburse.CodeInvalidState) {
			t.Errorf("register: %v; cancel: %v", errs[0], errs[1])
		}
		batch, err := f.svc.Batch(f.ctx, f.org, b)
		if err != nil {
			t.Fatal(err)
		}
		s := batch.Summary
		settledAll := batch.Status == disburse.BatchClosed && s.SettledCount == 30
		cancelledAll := batch.Status == disburse.BatchCancelled && s.CancelledCount == 30
		if !settledAll && !cancelledAll {
			t.Errorf("batch %s with %+v: want CLOSED with all settled or CANCELLED with all returned", batch.Status, s)
		}
		if cancelledAll != (errs[1] == nil) {
			t.Errorf("batch %s, but the cancel answered %v", batch.Status, errs[1])
		}
		f.checkSettled(t, s.SettledCount)
	}
}

// testCancelRacesRegistrationsAndReversal: cancel, registrations of several
// payees and reversal sweeps all want the same legs, balances and batch:
// each takes them in the one lock order, so contention ends in a result or
// invalid_state, never a deadlock's error, and each leg is resolved once.
func testCancelRacesRegistrationsAndReversal(t *testing.T, open func(t *testing.T) disburse.Store) {
	payees := []string{racePayee, msisdnKE, msisdnKE2, msisdnKE3}
	for round := range testenv.Pick(2, 6) { // rounds: odd ones with every leg due
		f := newFixture(t, open(t))
		b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "race"})
		if err != nil {
			t.Fatal(err)
		}
		in := make([]disburse.PaymentInput, 40)
		for i := range in {
			in[i] = disburse.PaymentInput{Msisdn: payees[i%len(payees)], Amount: "10.00"}
		}
		clear := false
		if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.svc.Submit(f.ctx, f.org, b.ID); err != nil {
			t.Fatal(err)
		}
		if round%2 == 1 {
			f.mu.Lock()
			f.now = f.now.Add(2 * time.Hour) // every leg is due for reversal
			f.mu.Unlock()
		}
		errs := f.race(len(payees)+3, func(i int) error {
			switch {
			case i < len(payees):
				_, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: payees[i]})
				return err
			case i == len(payees):
				_, err := f.svc.Cancel(f.ctx, f.org, b.ID)
				return err
			default:
				_, err := f.svc.ReverseDue(f.ctx)
				return err
			}
		})
		for i, err := range errs {
			if err != nil && !(i == len(payees) && disburse.ErrorCode(err) == disburse.CodeInvalidState) {
				t.Errorf("round %d, racer %d: %v", round, i, err)
			}
		}
		batch, err := f.svc.Batch(f.ctx, f.org, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		s := batch.Summary
		if s.PendingCount != 0 || s.SettledCount+s.CancelledCount != 40 {
			t.Errorf("round %d: batch %s with %+v: want every leg resolved once", round, batch.Status, s)
		}
		f.checkLedger(t)
	}
}

// testOneExternalIDRacesIntoManyBatches: docs/api.md section 4.1, an externalId is
// unique among the organisation's non-deleted payments. Adds to different
// batches lock different batch rows, so only the organisation row can
// order them.
func testOneExternalIDRacesIntoManyBatches(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newFixture(t, open(t))
	const n = 8
	batches := make([]string, n)
	for i := range batches {
		b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "race"})
		if err != nil {
			t.Fatal(err)
		}
		batches[i] = b.ID
	}
	// Thousands of payments each, so that the write transactions last
	// long enough to overlap.
	clear := false
	in := disburse.AddPaymentsInput{ClearExisting: &clear, Payments: make([]disburse.PaymentInput, 3000)}
	for i := range in.Payments {
		in.Payments[i] = disburse.PaymentInput{Msisdn: racePayee, Amount: "10.00"}
	}
	in.Payments[len(in.Payments)-1].ExternalID = "invoice-1"
	errs := f.race(n, func(i int) error { _, _, err := f.svc.AddPayments(f.ctx, f.org, batches[i], in); return err })
	added := 0
	for _, err := range errs {
		switch {
		case err == nil:
			added++
		case disburse.ErrorCode(err) != disburse.CodeInvalid:
			t.Errorf("add: unexpected error %v", err)
		}
	}
	if added != 1 {
		t.Errorf("externalId invoice-1 was added %d times, want once", added)
	}
}

// testSubmitRacesCancel: a cancel racing a submit of a DRAFT batch wins
// either way, since cancel is accepted from DRAFT and OPEN.
func testSubmitRacesCancel(t *testing.T, open func(t *testing.T) disburse.Store) {
	f := newFixture(t, open(t))
	b := f.batchOf(t, 20)
	errs := f.race(2, func(i int) error {
		if i == 0 {
			_, err := f.svc.Submit(f.ctx, f.org, b)
			return err
		}
		_, err := f.svc.Cancel(f.ctx, f.org, b)
		return err
	})
	for _, err := range errs {
		if err != nil && disburse.ErrorCode(err) != disburse.CodeInvalidState {
			t.Errorf("unexpected error %v", err)
		}
	}
	batch, err := f.svc.Batch(f.ctx, f.org, b)
	if err != nil || batch.Status != disburse.BatchCancelled {
		t.Errorf("batch %v %v: cancel is accepted from DRAFT and OPEN, so it must end CANCELLED", batch.Status, err)
	}
	f.checkLedger(t)
}

// racePayee is a non-member in the fixtures' batches.
const racePayee = "447911123456"

type fixture struct {
	ctx     context.Context
	svc     *disburse.Service
	org     string
	account string
	now     time.Time
	mu      sync.Mutex
}

func newFixture(t *testing.T, store disburse.Store) *fixture {
	t.Helper()
	f := &fixture{ctx: context.Background(), now: time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)}
	f.svc = disburse.NewService(store)
	f.svc.Clock = func() time.Time { f.mu.Lock(); defer f.mu.Unlock(); return f.now }
	org, accounts, err := organisations.Create(f.ctx, f.svc, organisations.NewOrganisation{Name: "Race Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	hour := int64(3600)
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, org.ID, organisations.Settings{ReversalPeriodSeconds: &hour}); err != nil {
		t.Fatal(err)
	}
	f.org, f.account = org.ID, accounts[0].ID
	if _, err := f.svc.Deposit(f.ctx, f.account, "100000", ""); err != nil {
		t.Fatal(err)
	}
	return f
}

// batchOf creates a DRAFT batch of n payments of 10.00 to racePayee.
func (f *fixture) batchOf(t *testing.T, n int) string {
	t.Helper()
	return f.batchTo(t, racePayee, n)
}

// batchTo creates a DRAFT batch of n payments of 10.00 to payee.
func (f *fixture) batchTo(t *testing.T, payee string, n int) string {
	t.Helper()
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "race"})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]disburse.PaymentInput, n)
	for i := range in {
		in[i] = disburse.PaymentInput{Msisdn: payee, Amount: "10.00"}
	}
	clear := false
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	return b.ID
}

// race runs fn n times at once, released together, and returns each error.
func (f *fixture) race(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			<-start
			errs[i] = fn(i)
		})
	}
	close(start)
	wg.Wait()
	return errs
}

// checkSettled requires one statement entry for racePayee per settled
// payment, and a sound ledger.
func (f *fixture) checkSettled(t *testing.T, settled int64) {
	t.Helper()
	st, err := f.svc.Statement(f.ctx, racePayee)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(st.Entries)) != settled {
		t.Errorf("%d statement entries for %d settled payments", len(st.Entries), settled)
	}
	f.checkLedger(t)
}

func (f *fixture) checkLedger(t *testing.T) {
	t.Helper()
	r, err := f.svc.CheckLedger(f.ctx)
	if err != nil || !r.OK {
		t.Errorf("ledger check: %v %v", err, r.Problems)
	}
}
