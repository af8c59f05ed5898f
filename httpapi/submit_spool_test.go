package httpapi

import (
	"encoding/json"
	"io"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// TestSpoolRestart: the pages of a submit's transaction that ran again
// are void; the spool holds the last run's, as one JSON array's elements.
func TestSpoolRestart(t *testing.T) {
	sp := newSpool(t.TempDir())
	defer sp.close()
	page := func(ids ...string) []disburse.Payment {
		var ps []disburse.Payment
		for _, id := range ids {
			ps = append(ps, disburse.Payment{ID: id, Status: disburse.PaymentSettled})
		}
		return ps
	}
	sp.Restart()
	sp.Page(page("a", "b"))
	sp.Page(page("c"))
	sp.Restart()
	sp.Page(page("d"))
	sp.Page(page("e", "f"))
	r, n, err := sp.payments()
	if err != nil || sp.failed() {
		t.Fatalf("payments: %v, failed %v", err, sp.err)
	}
	body, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	var got []struct{ ID string }
	if err := json.Unmarshal(append(append([]byte("["), body...), ']'), &got); err != nil {
		t.Fatalf("spooled %q: %v", body, err)
	}
	var ids []string
	for _, p := range got {
		ids = append(ids, p.ID)
	}
	if diff := cmp.Diff([]string{"d", "e", "f"}, ids); diff != "" || n != 3 {
		t.Errorf("spooled %d payments (-want +got):\n%s", n, diff)
	}
}
