package httpapi

import (
	"bytes"
	"os"
	"testing"

	"github.com/disburse/disburse/internal/gen/paymentjson"
)

// TestPaymentJSONGenerated fails when payment_json_gen.go is not what
// openapi.yaml's Payment schema and disburse.Payment make of it today.
func TestPaymentJSONGenerated(t *testing.T) {
	want, err := paymentjson.Generate(openAPI)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("payment_json_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("payment_json_gen.go is stale: run go generate ./... and commit it")
	}
}
