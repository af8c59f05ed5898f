package paymentjson

import (
	"strings"
	"testing"
)

func TestGoName(t *testing.T) {
	for in, want := range map[string]string{"id": "ID", "batchId": "BatchID", "statusCode": "StatusCode", "firstname": "Firstname"} {
		if got := goName(in); got != want {
			t.Errorf("goName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestGenerateRefuses: a member with no field of disburse.Payment, or of
// a schema that does not take the field's values, is an error, not code.
func TestGenerateRefuses(t *testing.T) {
	for _, tc := range []struct{ name, props, want string }{
		{"no field", "id: {type: string}\n        iban: {type: string}", "Payment.iban has no field"},
		{"wrong type", "id: {type: string}\n        amount: {type: string}", "does not take disburse.Payment.Amount"},
		{"optional first", "firstname: {type: string}", "must be required"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := "components:\n  schemas:\n    Payment:\n      required: [id]\n      properties:\n        " + tc.props + "\n"
			_, err := Generate([]byte(doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Generate: %v, want an error with %q", err, tc.want)
			}
		})
	}
}
