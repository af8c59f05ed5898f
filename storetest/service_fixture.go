package storetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// The webhook suite (webhooks.go) drives the Service rather than the Store
// port, and so does its benchmark; these helpers serve them until they
// join the other use-case suites in usecasetest, which has the same ones.

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
	org, accounts, err := f.svc.CreateOrganisation(f.ctx, disburse.NewOrganisation{Name: "Race Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	hour := int64(3600)
	if _, _, err := f.svc.UpdateSettings(f.ctx, org.ID, disburse.Settings{ReversalPeriodSeconds: &hour}); err != nil {
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

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// drain runs deliver, a worker's pass, until it finds nothing due, and
// returns how many it attempted.
func drain(b *testing.B, deliver func() (int, error)) int {
	b.Helper()
	total := 0
	for {
		k, err := deliver()
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			return total
		}
		total += k
	}
}
