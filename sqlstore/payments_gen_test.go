package sqlstore

import (
	"bytes"
	"os"
	"testing"

	"github.com/disburse/disburse/internal/gen/paymentsql"
)

// TestPaymentsGenerated fails when payments_gen.go is not what
// disburse.Payment makes of it today.
func TestPaymentsGenerated(t *testing.T) {
	want, err := paymentsql.Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("payments_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("payments_gen.go is stale: run go generate ./... and commit it")
	}
}
