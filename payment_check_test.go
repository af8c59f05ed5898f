package disburse

import (
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// CheckPayments reports what AddPayments would, without a store.
func TestCheckPayments(t *testing.T) {
	svc := NewService(nil)
	err := svc.CheckPayments([]PaymentInput{
		{Msisdn: "254712345678", Amount: "150.00", ExternalID: "a"},
		{Msisdn: "0712345678", Amount: "0.5", ExternalID: "a"},
		{Msisdn: "254712345678", Amount: "1", ReferralAmount: "2"},
	}, true)
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("err = %v, want a validation error", err)
	}
	var got []string
	for _, f := range e.Fields {
		got = append(got, fmt.Sprintf("%d %s", *f.Index, f.FieldName))
	}
	if diff := cmp.Diff([]string{"1 Msisdn", "1 Amount", "1 ExternalId", "2 ReferralMsisdn"}, got); diff != "" {
		t.Errorf("failures (-want +got):\n%s", diff)
	}
	if err := svc.CheckPayments([]PaymentInput{{Msisdn: "254712345678", Amount: "1"}}, false); err != nil {
		t.Errorf("a valid payment: %v", err)
	}
}
