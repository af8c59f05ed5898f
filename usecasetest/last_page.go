package usecasetest

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/organisations"
)

// LastPageTimes measures the last page of 1,000 payments of a
// 1,000,000-payment batch read by key (after the last payment of the page
// before, as version 2026-12-01's cursor reads it) and by offset (skip, as
// the first version reads it): the median of five reads of each. It logs
// both for docs/benchmarks.md ("Paging a million payments") and fails if
// either page is not the batch's last 1,000 payments.
func LastPageTimes(t *testing.T, s disburse.Store) {
	const n, per, limit = 1_000_000, 100_000, 1000
	ctx := t.Context()
	svc := disburse.NewService(s)
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Pages"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "million"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	for from := 0; from < n; from += per {
		in := make([]disburse.PaymentInput, per)
		for i := range in {
			in[i] = disburse.PaymentInput{Msisdn: fmt.Sprintf("2547%08d", 10_000_000+from+i), Amount: "10.00"}
		}
		if _, _, err := svc.AddPayments(ctx, org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
			t.Fatal(err)
		}
	}
	before, err := lists.Payments(ctx, svc, org.ID, b.ID, disburse.ListQuery{Skip: strconv.Itoa(n - limit - 1), Take: "1"})
	if err != nil || len(before) != 1 {
		t.Fatalf("the payment before the last page: %v, %v", before, err)
	}
	byKey := disburse.ListQuery{Keyset: true, After: before[0].ID, Take: strconv.Itoa(limit)}
	bySkip := disburse.ListQuery{Skip: strconv.Itoa(n - limit), Take: strconv.Itoa(limit)}
	keyTime, keyPage := medianRead(t, func() ([]disburse.Payment, error) { return lists.Payments(ctx, svc, org.ID, b.ID, byKey) })
	skipTime, skipPage := medianRead(t, func() ([]disburse.Payment, error) { return lists.Payments(ctx, svc, org.ID, b.ID, bySkip) })
	if len(keyPage) != limit || len(skipPage) != limit || keyPage[0].ID != skipPage[0].ID || keyPage[limit-1].ID != skipPage[limit-1].ID {
		t.Fatalf("the pages differ: by key %d payments, by skip %d", len(keyPage), len(skipPage))
	}
	t.Logf("last page of %d of %d payments: by cursor %v, by skip %v (%.0fx)", limit, n, keyTime, skipTime, float64(skipTime)/float64(keyTime))
}

// medianRead runs read five times and returns its median time and its
// last answer.
func medianRead(t *testing.T, read func() ([]disburse.Payment, error)) (time.Duration, []disburse.Payment) {
	var times []time.Duration
	var page []disburse.Payment
	for range 5 {
		start := time.Now()
		var err error
		if page, err = read(); err != nil {
			t.Fatal(err)
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return times[len(times)/2], page
}
