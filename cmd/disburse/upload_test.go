package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/csvpayments"
)

// TestUploadSendsEveryColumn: a row with every column of a CSV file set
// reaches the client's request with every member, as written.
func TestUploadSendsEveryColumn(t *testing.T) {
	values := map[string]string{"amount": "150.00", "referralAmount": "5.00"}
	var cells []string
	for _, c := range csvpayments.Columns {
		if values[c] == "" {
			values[c] = "v-" + c
		}
		cells = append(cells, values[c])
	}
	r, failures := csvpayments.Open(strings.NewReader(strings.Join(csvpayments.Columns, ",") + "\n" + strings.Join(cells, ",") + "\n"))
	if failures != nil {
		t.Fatal(failures)
	}
	rows, _, err := r.Next(1)
	if err != nil || len(rows) != 1 {
		t.Fatalf("rows %v: %v", rows, err)
	}
	body, err := json.Marshal(toWire(rows[0], "hash"))
	if err != nil {
		t.Fatal(err)
	}
	var sent map[string]json.RawMessage
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	for _, c := range csvpayments.Columns {
		want := `"` + values[c] + `"`
		if slices.Contains([]string{"amount", "referralAmount"}, c) {
			want = values[c]
		}
		if got := string(sent[c]); got != want {
			t.Errorf("column %s: sent %s, want %s (is client.gen.go stale? run go generate ./...)", c, got, want)
		}
	}
}
