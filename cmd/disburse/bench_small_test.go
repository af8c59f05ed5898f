package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse/postgres/pgtest"
)

// TestSmallRequestsBench runs `disburse bench --small-requests`, small, on
// both stores: the binary runs its own serve as the service under test
// (os.Executable), and the line has every figure of docs/benchmarks.md's
// "Small requests" with a sound ledger. PostgreSQL's floor runs pgbench.
func TestSmallRequestsBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	for _, store := range []struct {
		name string
		url  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "small.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
	} {
		t.Run(store.name, func(t *testing.T) {
			url := store.url(t)
			stdout, stderr, code := runBinary(t, bin, nil, "bench", "--small-requests", "--duration", "1s", "--connections", "2", "--rate", "40", "--database-url", url)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
			}
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			last := lines[len(lines)-1]
			var j struct {
				Mode         string  `json:"mode"`
				ReadRequests int     `json:"read_requests"`
				ReadCPU      float64 `json:"read_cpu_ms"`
				WriteCPU     float64 `json:"write_cpu_ms"`
				Writes       float64 `json:"writes_per_s"`
				Floor        float64 `json:"writes_floor_per_s"`
				Ratio        float64 `json:"writes_ratio"`
				HalfP99      float64 `json:"writes_half_p99_ms"`
				LedgerOK     bool    `json:"ledger_ok"`
			}
			if err := json.Unmarshal([]byte(last), &j); err != nil {
				t.Fatalf("the last line %q: %v", last, err)
			}
			if j.Mode != "small-requests" || !j.LedgerOK || j.ReadRequests < 20 || j.Writes <= 0 || j.Floor <= 0 || j.Ratio <= 0 || j.HalfP99 <= 0 {
				t.Errorf("%s: want every figure measured and a sound ledger", last)
			}
			if j.ReadCPU < 0 || j.WriteCPU < 0 {
				t.Errorf("%s: a negative CPU time", last)
			}
		})
	}
}
