package bench

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/disburse/disburse/postgres/pgtest"
)

// stores are the two engines' URLs for a test of its own.
var stores = []struct {
	name string
	url  func(t *testing.T) string
}{
	{"sqlite", func(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "bench.db") }},
	{"postgres", func(t *testing.T) string { return pgtest.URL(t) }},
}

// runMode runs the bench as cfg says, small, and decodes its JSON line,
// the last, into out; the run fails on an unsound ledger.
func runMode(t *testing.T, url string, cfg Config, out any) {
	t.Helper()
	var b bytes.Buffer
	cfg.DatabaseURL, cfg.Open, cfg.Out, cfg.Pairs = url, openTestStore, &b, 1
	if err := Run(t.Context(), cfg); err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSpace(b.Bytes()), []byte("\n"))
	if err := json.Unmarshal(lines[len(lines)-1], out); err != nil {
		t.Fatalf("the last line %q: %v", lines[len(lines)-1], err)
	}
}

// TestTenantsMode: four organisations' shares and one organisation's
// whole, both timed, through two replicas on PostgreSQL and one on SQLite.
func TestTenantsMode(t *testing.T) {
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			cfg := Defaults
			cfg.Tenants, cfg.Payments, cfg.Chunk = 4, 400, 50
			var j tenantsJSON
			runMode(t, store.url(t), cfg, &j)
			replicas := map[string]int{"sqlite": 1, "postgres": 2}[store.name]
			if j.Mode != "tenants" || j.Tenants != 4 || j.Replicas != replicas || !j.LedgerOK || j.TenantsS <= 0 || j.OneOrgS <= 0 || j.TenantsRatio <= 0 {
				t.Errorf("%+v: want 4 tenants through %d replicas, both sides timed, a sound ledger", j, replicas)
			}
		})
	}
}

// TestRegistrationMode: each round's service and floor register their own
// payees, the floor as many again for each grouping its clients allow,
// and the line gives the ratio to the floor.
func TestRegistrationMode(t *testing.T) {
	for _, store := range stores {
		t.Run(store.name, func(t *testing.T) {
			cfg := Defaults
			cfg.Registration, cfg.Payments, cfg.Register, cfg.Clients = true, 400, 10, []int{1, 4}
			var j registrationJSON
			runMode(t, store.url(t), cfg, &j)
			if len(j.Rounds) != 2 || !j.LedgerOK || j.RegisterFloorPerS <= 0 || j.RegisterRatio <= 0 {
				t.Fatalf("%+v: want two rounds, a floor and a ratio, a sound ledger", j)
			}
			for k, want := range []int{10, 20} {
				if r := j.Rounds[k]; r.Registered != 10 || r.FloorPayees != want || r.FloorPerS <= 0 || r.P99Ms <= 0 {
					t.Errorf("round %+v: want 10 registered, %d by the floor", r, want)
				}
			}
		})
	}
}

func TestFloorGroupings(t *testing.T) {
	for clients, want := range map[int][]floorGrouping{
		1:   {{1, 1}},
		8:   {{8, 1}, {4, 2}},
		64:  {{64, 1}, {32, 2}},
		300: {{128, 1}, {128, 2}},
	} {
		if got := floorGroupings(clients); !slices.Equal(got, want) {
			t.Errorf("%d clients: groupings %v, want %v", clients, got, want)
		}
	}
}
