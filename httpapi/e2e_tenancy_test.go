package httpapi_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// TestE2ETenantIsolation: another organisation's ids are 404, never 403,
// on every route (docs/api.md section 2), and its batches never show in a list.
func TestE2ETenantIsolation(t *testing.T) { eachStore(t, testE2ETenantIsolation) }

func testE2ETenantIsolation(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "1000.00")
	b := h.createOrg("B", false, "1000.00")
	batch := h.createBatch(a, "A's")
	payment := ok[Batch](t, h.addPayments(a, batch.ID, false, pay(member, "10")), 200).Payments[0]
	h.createBatch(b, "B's")

	good := `{"clearExisting":false,"payments":[` + pay(member, "10") + `]}`
	bad := `{"clearExisting":false,"payments":[` + pay("0", "0.001") + `]}` // would be a 400 if the batch were B's
	routes := []struct{ method, path, body string }{
		{"GET", "/batches/" + batch.ID, ""},
		{"PUT", "/batches/" + batch.ID, `{"name":"mine now"}`},
		{"PUT", "/batches/" + batch.ID, `{"name":""}`},
		{"GET", "/batches/" + batch.ID + "/payments", ""},
		{"GET", "/batches/" + batch.ID + "/payments?take=0", ""},
		{"POST", "/batches/" + batch.ID + "/payments", good},
		{"POST", "/batches/" + batch.ID + "/payments", bad},
		{"POST", "/batches/" + batch.ID + "/submit", ""},
		{"POST", "/batches/" + batch.ID + "/cancel", ""},
		{"GET", "/payments/" + payment.ID, ""},
		{"DELETE", "/payments/" + payment.ID, ""},
	}
	before := ok[Batch](t, h.do("GET", "/batches/"+batch.ID, a.token, nil), 200)
	for _, rt := range routes {
		var body any
		if rt.body != "" {
			body = rt.body
		}
		t.Run(rt.method+" "+rt.path, func(t *testing.T) {
			problem(t, h.do(rt.method, rt.path, b.token, body), 404, "not_found")
		})
	}
	for _, got := range ok[[]Batch](t, h.do("GET", "/batches", b.token, nil), 200) {
		if got.ID == batch.ID {
			t.Errorf("B lists A's batch")
		}
	}
	// A's batch is as it was.
	if diff := cmp.Diff(before, ok[Batch](t, h.do("GET", "/batches/"+batch.ID, a.token, nil), 200)); diff != "" {
		t.Errorf("A's batch changed (-before +after):\n%s", diff)
	}
	if got := ok[Payment](t, h.do("GET", "/payments/"+payment.ID, a.token, nil), 200); got.StatusCode != "DRAFT" {
		t.Errorf("A's payment %+v", got)
	}
}

// TestE2EMalformedIDs: a path id that is no UUID, or not the service's
// lower-case form, is a 404 on every route that takes one.
func TestE2EMalformedIDs(t *testing.T) { eachStore(t, testE2EMalformedIDs) }

func testE2EMalformedIDs(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "")
	batch := h.createBatch(a, "real")
	for _, id := range []string{"not-a-uuid", "1", strings.ToUpper(batch.ID), batch.ID + "0", "%20", disburse.NewID()} {
		for _, rt := range []struct{ method, path, token, body string }{
			{"GET", "/batches/" + id, a.token, ""},
			{"PUT", "/batches/" + id, a.token, `{"name":"x"}`},
			{"GET", "/batches/" + id + "/payments", a.token, ""},
			{"POST", "/batches/" + id + "/payments", a.token, `{"clearExisting":false,"payments":[` + pay(member, "1") + `]}`},
			{"POST", "/batches/" + id + "/submit", a.token, ""},
			{"POST", "/batches/" + id + "/cancel", a.token, ""},
			{"GET", "/payments/" + id, a.token, ""},
			{"DELETE", "/payments/" + id, a.token, ""},
			{"GET", "/admin/organisations/" + id, adminToken, ""},
			{"PUT", "/admin/organisations/" + id + "/settings", adminToken, `{}`},
			{"POST", "/admin/organisations/" + id + "/accounts", adminToken, `{"name":"x"}`},
			{"POST", "/admin/organisations/" + id + "/apiKeys", adminToken, ""},
			{"DELETE", "/admin/apiKeys/" + id, adminToken, ""},
			{"POST", "/admin/accounts/" + id + "/deposits", adminToken, `{"amount":1}`},
		} {
			var body any
			if rt.body != "" {
				body = rt.body
			}
			t.Run(rt.method+" "+rt.path, func(t *testing.T) {
				problem(t, h.do(rt.method, rt.path, rt.token, body), 404, "not_found")
			})
		}
	}
}
