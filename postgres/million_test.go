package postgres_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestMillionRegistrationDuringSubmit: the payee of the last payment of a
// 1,000,000-payment batch registers while the submit is on their page,
// after it read their membership; the submit and the registration each
// commit without seeing the other, and one run of SettleMembersPending
// pays them. A million payments take long, so it runs when
// DISBURSE_TEST_MILLION is set (docs/benchmarks.md has its figures).
func TestMillionRegistrationDuringSubmit(t *testing.T) {
	if os.Getenv("DISBURSE_TEST_MILLION") == "" {
		t.Skip("a million payments: set DISBURSE_TEST_MILLION=1 to run it (as .ci/run does)")
	}
	ctx := t.Context()
	svc := disburse.NewService(pgtest.Open(t))
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Million"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Deposit(ctx, accounts[0].ID, "20000000", ""); err != nil {
		t.Fatal(err)
	}
	b, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "million"})
	if err != nil {
		t.Fatal(err)
	}
	const n, per = 1_000_000, 100_000
	const late = "254799999999"
	start := time.Now()
	clear := false
	for from := 0; from < n; from += per {
		in := make([]disburse.PaymentInput, per)
		for i := range in {
			in[i] = disburse.PaymentInput{Msisdn: fmt.Sprintf("2547%08d", 10_000_000+from+i), Amount: "10.00"}
		}
		if from+per == n {
			in[per-1].Msisdn = late
		}
		if _, _, err := svc.AddPayments(ctx, org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("added %d payments in %v", n, time.Since(start))

	w := &registerDuring{register: func() error {
		_, _, err := svc.RegisterMember(ctx, disburse.Member{Msisdn: late})
		return err
	}}
	start = time.Now()
	if _, err := svc.SubmitWatched(ctx, org.ID, b.ID, w); err != nil {
		t.Fatal(err)
	}
	t.Logf("submitted in %v; the registration during it answered %v", time.Since(start), w.err)
	if w.err != nil || !w.done {
		t.Fatalf("registration during the submit: done %v, %v", w.done, w.err)
	}
	start = time.Now()
	settled, err := svc.SettleMembersPending(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("SettleMembersPending settled %d in %v", settled, time.Since(start))
	st, err := svc.Statement(ctx, late)
	if err != nil {
		t.Fatal(err)
	}
	if settled != 1 || len(st.Entries) != 1 {
		t.Errorf("settled %d, statement %d entries: want the late registrant paid once", settled, len(st.Entries))
	}
	if r, err := svc.CheckLedger(ctx); err != nil || !r.OK {
		t.Errorf("ledger: %v %v", err, r.Problems)
	}
}

// registerDuring registers, and waits for it, once the submit has paid
// the payments and before it commits: on PostgreSQL the registration
// commits beside the submit.
type registerDuring struct {
	register func() error
	done     bool
	err      error
}

func (w *registerDuring) Restart() {}

func (w *registerDuring) Paid() {
	if !w.done {
		w.err, w.done = w.register(), true
	}
}
