package usecasetest

import (
	"fmt"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
)

// testAddRunAgain: an add whose transaction ran in full, rolled back and
// ran again (as the store runs it again after a deadlock) adds each
// payment once, as checked the second time: the answer and the stored
// batch hold the request's payments in order, with their amounts and
// membership, and the summary counts them once.
func testAddRunAgain(t *testing.T, open func(t *testing.T) disburse.Store) {
	store := open(t)
	f := newFixture(t, store)
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdnKE}); err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "again"})
	if err != nil {
		t.Fatal(err)
	}
	in := make([]disburse.PaymentInput, 1500) // more than one run of checks
	for i := range in {
		in[i] = disburse.PaymentInput{Msisdn: msisdnKE2, Amount: disburse.Number(fmt.Sprintf("%d.%02d", 1+i, i%100)), ExternalID: fmt.Sprintf("again-%d", i)}
		if i%3 == 0 {
			in[i].Msisdn = msisdnKE
		}
	}
	rolling := &rollingStore{Store: store}
	f.svc.Store = rolling
	rolling.arm(true)
	clear := false
	got, added, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := lists.Payments(f.ctx, f.svc, f.org, b.ID, disburse.ListQuery{Take: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	more, err := lists.Payments(f.ctx, f.svc, f.org, b.ID, disburse.ListQuery{Skip: "1000", Take: "1000"})
	if err != nil {
		t.Fatal(err)
	}
	stored = append(stored, more...)
	if len(added) != len(in) || len(stored) != len(in) || got.Summary.PaymentsCount != int64(len(in)) {
		t.Fatalf("added %d, stored %d, counted %d; want %d each", len(added), len(stored), got.Summary.PaymentsCount, len(in))
	}
	for i, p := range added {
		wantAmount, _ := disburse.ParseMoney(string(in[i].Amount))
		if p.Msisdn != in[i].Msisdn || p.Amount != wantAmount || p.ExternalID != in[i].ExternalID || p.IsMember != (i%3 == 0) || p.ID != stored[i].ID || stored[i].Amount != wantAmount {
			t.Fatalf("payment %d: added %+v, stored %+v; want %+v, a member %v", i, p, stored[i], in[i], i%3 == 0)
		}
	}
}
