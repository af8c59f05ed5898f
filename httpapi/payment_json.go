package httpapi

import (
	"encoding/json"

	"github.com/disburse/disburse"
)

// paymentJSON, toPayment and appendPaymentJSON are generated from the
// Payment schema of openapi.yaml and disburse.Payment into
// payment_json_gen.go (internal/gen/paymentjson); TestPaymentJSONGenerated
// fails when that file is stale.
//
//go:generate go run github.com/disburse/disburse/internal/gen paymentjson openapi.yaml payment_json_gen.go

// appendPayment appends the bytes of json.Marshal(toPayment(p)), without
// reflection: a submit writes up to a million payments, and json.Marshal
// of each was a large share of a submit's CPU (docs/benchmarks.md).
// TestAppendPaymentMatchesMarshal holds its bytes to json.Marshal's.
func appendPayment(dst []byte, p disburse.Payment) []byte {
	j := toPayment(p)
	return appendPaymentJSON(dst, &j)
}

// appendString writes s as a JSON string. Identifiers, numbers and most
// names are printable ASCII that needs no escape and are copied as they
// are; anything else goes to json.Marshal, whose escaping (HTML characters,
// U+2028 and U+2029, invalid UTF-8, control characters) is then the same
// by construction.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
