package httpapi_test

import (
	"fmt"
	"strings"
	"testing"
)

// TestE2EAddFailsInALaterRun: a request whose failures lie past its first
// thousand payments (a payee, an external id the request repeats, one
// another batch holds) answers every failure at once and adds nothing,
// though PostgreSQL copies a request's first payments while it checks the
// rest (docs/benchmarks.md, "The add and the stores"); an external id
// taken elsewhere, the request's only failure, is found by the insert
// itself and answered the same way; the request mended adds every
// payment.
func TestE2EAddFailsInALaterRun(t *testing.T) { eachStore(t, testE2EAddFailsInALaterRun) }

func testE2EAddFailsInALaterRun(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Runs", false, "")
	ok[Batch](t, h.addPayments(a, h.createBatch(a, "taken").ID, false, `{"msisdn":"`+member+`","amount":10,"externalId":"held"}`), 200)
	b := h.createBatch(a, "runs")
	const n = 3500
	body := func(change map[int][2]string) string {
		var sb strings.Builder
		sb.WriteString(`{"clearExisting":false,"payments":[`)
		for i := range n {
			if i > 0 {
				sb.WriteByte(',')
			}
			msisdn, ext := member, fmt.Sprint("r", i)
			if c, ok := change[i]; ok {
				msisdn, ext = c[0], c[1]
			}
			fmt.Fprintf(&sb, `{"msisdn":"%s","amount":10,"externalId":"%s"}`, msisdn, ext)
		}
		sb.WriteString(`]}`)
		return sb.String()
	}
	add := func(change map[int][2]string) response {
		return h.do("POST", "/batches/"+b.ID+"/payments", a.token, body(change))
	}
	count := func() int {
		return ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200).Summary.PaymentsCount
	}

	wantFailures(t, add(map[int][2]string{2500: {"0712", "r2500"}, 3100: {member, "r7"}, 3400: {member, "held"}}),
		failure{"Msisdn", "0712", at(2500)}, failure{"ExternalId", "r7", at(3100)}, failure{"ExternalId", "held", at(3400)})
	if c := count(); c != 0 {
		t.Fatalf("after a request that failed: %d payments, want 0", c)
	}
	wantFailures(t, add(map[int][2]string{3400: {member, "held"}}), failure{"ExternalId", "held", at(3400)})
	if c := count(); c != 0 {
		t.Fatalf("after a request whose external id was taken: %d payments, want 0", c)
	}
	added := ok[Batch](t, add(nil), 200)
	if added.Summary.PaymentsCount != n || len(added.Payments) != n {
		t.Errorf("mended request: count %d, %d payments; want %d", added.Summary.PaymentsCount, len(added.Payments), n)
	}
	for i, p := range added.Payments {
		if want := fmt.Sprint("r", i); p.ExternalID != want {
			t.Fatalf("payment %d: externalId %q, want %q (the request's order)", i, p.ExternalID, want)
		}
	}
}
