package usecasetest

import (
	"fmt"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// benchMembers is how many distinct members the benchmark's batches pay:
// the half of the payments that go to members spread over them (docs/api.md section S1.9
// allows several payments to one msisdn), so the setup registers a few
// thousand members, not fifty thousand.
const benchMembers = 2_000

// BenchBatch100k measures the real use cases on a store: AddPayments of
// 100,000 payments in one request (validation, external ids, membership,
// the bulk insert), then Submit of the batch (half to members with the app
// installed: PAY and a PUSH each; half to non-members: HOLD and an SMS
// each). It reports each in ms per 100,000 payments, and how long the
// ledger audit of everything takes at the end. Each store's
// BenchmarkBatch100k runs it on a new, empty store.
func BenchBatch100k(b *testing.B, s disburse.Store) {
	const n = 100_000
	ctx := b.Context()
	svc := disburse.NewService(s)
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.Deposit(ctx, accounts[0].ID, "1000000000000", "bench"); err != nil {
		b.Fatal(err)
	}
	err = s.Write(ctx, func(tx disburse.Tx) error {
		for i := range benchMembers {
			m := disburse.Member{Msisdn: fmt.Sprintf("2547%08d", i), AppInstalled: true, RegisteredAt: time.Now().UTC()}
			if _, err := tx.InsertMembers(ctx, []disburse.Member{m}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}

	var add, submit time.Duration
	batches := 0
	for b.Loop() {
		batch, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		in := make([]disburse.PaymentInput, n)
		for i := range in {
			msisdn := fmt.Sprintf("2547%08d", benchMembers+i) // a non-member
			if i%2 == 0 {
				msisdn = fmt.Sprintf("2547%08d", i%benchMembers)
			}
			in[i] = disburse.PaymentInput{Msisdn: msisdn, Amount: "150.00", Firstname: "First", Lastname: "Last",
				ExternalID: fmt.Sprintf("b%d-%d", batches, i)}
		}
		batches++
		clear := false

		start := time.Now()
		if _, _, err := svc.AddPayments(ctx, org.ID, batch.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
			b.Fatal(err)
		}
		add += time.Since(start)

		start = time.Now()
		submitted, err := svc.Submit(ctx, org.ID, batch.ID)
		if err != nil {
			b.Fatal(err)
		}
		submit += time.Since(start)
		if got := submitted.Summary.SettledCount; got != n/2 {
			b.Fatalf("submit settled %d payments, want %d", got, n/2)
		}
	}
	b.ReportMetric(float64(add.Milliseconds())/float64(b.N), "add-ms/op")
	b.ReportMetric(float64(submit.Milliseconds())/float64(b.N), "submit-ms/op")

	start := time.Now()
	report, err := svc.CheckLedger(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if !report.OK {
		b.Errorf("ledger check: %q", report.Problems)
	}
	b.ReportMetric(float64(time.Since(start).Milliseconds()), "audit-ms")
}
