package httpapi_test

import (
	"errors"
	"testing"

	"github.com/disburse/disburse"
)

// TestE2EAddAllOrNothing: an add is all or nothing (docs/api.md section
// 4.1), on both stores, with a batch limit of 3: a request that would
// take the batch past it, or holds one bad payment, adds none of its
// payments; and so does a file the portal hands over in chunks
// (Service.AddPaymentChunks) whose later chunk passes the limit.
func TestE2EAddAllOrNothing(t *testing.T) { eachStore(t, testE2EAddAllOrNothing) }

func testE2EAddAllOrNothing(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	h.svc.Limits.MaxPaymentsPerBatch = 3
	o := h.createOrg("Acme", false, "")
	b := h.createBatch(o, "November")
	count := func() int {
		t.Helper()
		return len(ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", o.token, nil), 200))
	}
	ok[Batch](t, h.addPayments(o, b.ID, false, pay(member, "1.00"), pay(member, "2.00")), 200)

	wantFailures(t, h.addPayments(o, b.ID, false, pay(member, "3.00"), pay(member, "4.00")), failure{"Payments", "4", nil})
	if n := count(); n != 2 {
		t.Errorf("payments after an add past the limit: %d, want 2", n)
	}
	h.svc.Limits.MaxPaymentsPerBatch = 4 // room for both
	wantFailures(t, h.addPayments(o, b.ID, false, pay(member, "3.00"), pay("0712345678", "4.00")), failure{"Msisdn", "0712345678", at(1)})
	if n := count(); n != 2 {
		t.Errorf("payments after an add with a bad payment: %d, want 2", n)
	}
	h.svc.Limits.MaxPaymentsPerBatch = 3

	chunks := func(yield func([]disburse.PaymentInput) error) error {
		for range 2 {
			if err := yield([]disburse.PaymentInput{{Msisdn: member, Amount: "5"}}); err != nil {
				return err
			}
		}
		return nil
	}
	_, _, err := h.svc.AddPaymentChunks(t.Context(), o.ID, b.ID, chunks)
	var e *disburse.Error
	if !errors.As(err, &e) || e.Code != disburse.CodeInvalid || len(e.Fields) != 1 || e.Fields[0].FieldName != "Payments" {
		t.Errorf("chunks past the limit: %v, want the limit's failure", err)
	}
	if n := count(); n != 2 {
		t.Errorf("payments after chunks past the limit: %d, want 2: the first chunk was kept", n)
	}
	h.svc.Limits.MaxPaymentsPerBatch = 4
	if _, n, err := h.svc.AddPaymentChunks(t.Context(), o.ID, b.ID, chunks); err != nil || n != 2 {
		t.Errorf("chunks that fit: %d, %v", n, err)
	}
	if n := count(); n != 4 {
		t.Errorf("payments: %d, want 4", n)
	}
}
