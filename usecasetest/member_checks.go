package usecasetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
)

// testRegistrationDuringSubmit: a payee who registers before, during or
// after the submit of a batch that pays them ends with every leg SETTLED
// (at once, or after one run of SettleMembersPending, the worker's next
// interval), never reversed. On PostgreSQL a registration that commits
// while the submit is under way is seen by neither transaction.
func testRegistrationDuringSubmit(t *testing.T, open func(t *testing.T) disburse.Store) {
	const pageSize, pages = 10, 5
	cases := []struct {
		name                string
		payeeAt, registerAt int // the payee's payment index; when they register (-1 before, 0 during, pages after)
	}{
		{"before", 0, -1},
		{"during, the first payment theirs", 0, 0},
		{"during, a late payment theirs", pageSize*(pages-1) + 3, 0},
		{"after", pageSize * 2, pages},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, open(t))
			f.svc.PageSize = pageSize
			b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "members"})
			if err != nil {
				t.Fatal(err)
			}
			in := make([]disburse.PaymentInput, pageSize*pages)
			for i := range in {
				in[i] = disburse.PaymentInput{Msisdn: msisdnKE2, Amount: "10.00"}
			}
			in[tc.payeeAt] = disburse.PaymentInput{Msisdn: racePayee, Amount: "10.00"}
			clear := false
			if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
				t.Fatal(err)
			}
			register := func() error {
				_, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee, AppInstalled: true})
				return err
			}
			if tc.registerAt < 0 {
				if err := register(); err != nil {
					t.Fatal(err)
				}
			}
			w := &registerOnPage{page: tc.registerAt, register: register, done: make(chan error, 1)}
			if _, err := f.svc.SubmitWatched(f.ctx, f.org, b.ID, w); err != nil {
				t.Fatal(err)
			}
			if tc.registerAt >= 0 && tc.registerAt < pages {
				if err := <-w.done; err != nil {
					t.Fatalf("register: %v", err)
				}
			} else if tc.registerAt >= pages {
				if err := register(); err != nil {
					t.Fatal(err)
				}
			}
			// One worker interval: the batch's queued check runs.
			if _, err := f.svc.SettleMembersPending(f.ctx); err != nil {
				t.Fatal(err)
			}
			// Past the reversal period, the sweep finds nothing of theirs.
			f.mu.Lock()
			f.now = f.now.Add(2 * time.Hour)
			f.mu.Unlock()
			if _, err := f.svc.ReverseDue(f.ctx); err != nil {
				t.Fatal(err)
			}
			p := paymentTo(t, f, b.ID, racePayee)
			if p.Status != disburse.PaymentSettled {
				t.Errorf("payment to the registered payee is %s, want SETTLED", p.Status)
			}
			f.checkSettled(t, 1)
			batch, err := f.svc.Batch(f.ctx, f.org, b.ID)
			if err != nil {
				t.Fatal(err)
			}
			if s := batch.Summary; s.SettledCount != 1 || s.CancelledCount != pageSize*pages-1 || batch.Status != disburse.BatchClosed {
				t.Errorf("batch %s with %+v: want one settled, the rest reversed, CLOSED", batch.Status, s)
			}
		})
	}
}

// registerOnPage registers the payee during the submit when page is 0,
// once its membership was read, and not at all otherwise. It waits a
// little for the registration: on PostgreSQL it commits at once, beside
// the submit; on SQLite it waits for the submit's write lock, and lands
// after it.
type registerOnPage struct {
	page, seen int
	register   func() error
	done       chan error
}

func (w *registerOnPage) Restart() { w.seen = 0 }

func (w *registerOnPage) Paid() {
	if w.seen == w.page {
		go func() { w.done <- w.register() }()
		select {
		case err := <-w.done:
			w.done <- err // for the test to read
		case <-time.After(time.Second):
		}
	}
	w.seen++
}

// paymentTo is the batch's one payment to msisdn.
func paymentTo(t *testing.T, f *fixture, batchID, msisdn string) disburse.Payment {
	t.Helper()
	ps, err := lists.Payments(f.ctx, f.svc, f.org, batchID, disburse.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		if p.Msisdn == msisdn {
			return p
		}
	}
	t.Fatalf("no payment to %s", msisdn)
	return disburse.Payment{}
}
