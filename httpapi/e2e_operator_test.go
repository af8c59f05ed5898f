package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse/httpapi"
)

type Transfer struct {
	ID        string      `json:"id"`
	AccountID string      `json:"accountId"`
	Amount    json.Number `json:"amount"`
	Reference string      `json:"reference"`
	CreatedAt string      `json:"createdAt"`
}

// TestE2EOperator: the operator API's validation and answers (docs/api.md section 7).
func TestE2EOperator(t *testing.T) { eachStore(t, testE2EOperator) }

func testE2EOperator(t *testing.T, store opener) {
	h := startDefaultOn(t, store)

	for body, want := range map[string][]failure{
		`{}`: {{"Name", "", nil}},
		`{"name":"A","currency":"kes","reversalPeriodDays":0}`: {{"Currency", "kes", nil}, {"ReversalPeriodDays", "0", nil}},
		`{"name":"A","referralsEnabled":"yes"}`:                {{"ReferralsEnabled", "yes", nil}},
	} {
		if diff := cmp.Diff(want, failures(t, h.do("POST", "/admin/organisations", adminToken, body))); diff != "" {
			t.Errorf("%s (-want +got):\n%s", body, diff)
		}
	}
	o := ok[Organisation](t, h.do("POST", "/admin/organisations", adminToken, `{"name":"Euro","currency":"EUR","referralsEnabled":true,"reversalPeriodDays":2}`), 201)
	if o.Currency != "EUR" || !o.ReferralsEnabled || o.ReversalPeriodSeconds != 2*24*3600 || o.Accounts[0].Currency != "EUR" {
		t.Errorf("organisation %+v", o)
	}

	// Deposits: amounts as exactly as payments; 201 with the transfer.
	path := "/admin/accounts/" + o.Accounts[0].ID + "/deposits"
	for body, want := range map[string]failure{
		`{"amount":1e2}`:   {"Amount", "1e2", nil},
		`{"amount":"10"}`:  {"Amount", "10", nil},
		`{}`:               {"Amount", "", nil},
		`{"amount":0}`:     {"Amount", "0", nil},
		`{"amount":0.001}`: {"Amount", "0.001", nil},
		`{"amount":-1}`:    {"Amount", "-1", nil},
	} {
		wantFailures(t, h.do("POST", path, adminToken, body), want)
	}
	r := h.do("POST", path, adminToken, `{"amount":10.5,"reference":"wire 42"}`)
	tr := ok[Transfer](t, r, 201)
	if diff := cmp.Diff(Transfer{ID: tr.ID, AccountID: o.Accounts[0].ID, Amount: "10.50", Reference: "wire 42", CreatedAt: tr.CreatedAt}, tr); diff != "" {
		t.Errorf("transfer (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(r.body), `"amount":10.50`) {
		t.Errorf("amount not written with two decimals: %s", r.body)
	}
	wantTime(t, "createdAt", tr.CreatedAt, h.clock.Now())
	if r := h.do("POST", path, adminToken, `{"amount":0.01}`); strings.Contains(string(r.body), "reference") {
		t.Errorf("absent reference written: %s", r.body)
	}

	// Members: msisdn rules; statement of a stranger is empty, not 404.
	wantFailures(t, h.do("POST", "/admin/members", adminToken, `{"msisdn":"0712345678"}`), failure{"Msisdn", "0712345678", nil})
	wantFailures(t, h.do("POST", "/admin/members", adminToken, `{"msisdn":"`+member+`","lastname":"`+strings.Repeat("x", 101)+`"}`),
		failure{"Lastname", strings.Repeat("x", 101), nil})
	wantFailures(t, h.do("GET", "/admin/members/0712/statement", adminToken, nil), failure{"Msisdn", "0712", nil})
	if diff := cmp.Diff(Statement{Msisdn: member, Balance: "0.00", Entries: []StatementEntry{}},
		ok[Statement](t, h.do("GET", "/admin/members/"+member+"/statement", adminToken, nil), 200)); diff != "" {
		t.Errorf("stranger's statement (-want +got):\n%s", diff)
	}
	if r := h.do("GET", "/admin/notifications", adminToken, nil); string(r.body) != "[]" {
		t.Errorf("no notifications = %s, want []", r.body)
	}

	// GET /members/{msisdn}/exists, for an organisation.
	org := h.createOrg("Acme", false, "")
	type exists struct {
		Msisdn string `json:"msisdn"`
		Exists bool   `json:"exists"`
	}
	wantFailures(t, h.do("GET", "/members/0712345678/exists", org.token, nil), failure{"Msisdn", "0712345678", nil})
	wantFailures(t, h.do("GET", "/members/+254712345678/exists", org.token, nil), failure{"Msisdn", "+254712345678", nil})
	if got := ok[exists](t, h.do("GET", "/members/"+member+"/exists", org.token, nil), 200); got != (exists{member, false}) {
		t.Errorf("exists %+v", got)
	}
	ok[Member](t, h.register(member, false), 201)
	if got := ok[exists](t, h.do("GET", "/members/"+member+"/exists", org.token, nil), 200); got != (exists{member, true}) {
		t.Errorf("exists %+v", got)
	}
}

// TestE2EService: health, the document, unknown routes and the request id.
func TestE2EService(t *testing.T) { eachStore(t, testE2EService) }

func testE2EService(t *testing.T, store opener) {
	h := startOn(t, store, httpapi.Config{AdminToken: adminToken, MaxBodyBytes: 1024})
	if r := h.do("GET", "/healthz", "", nil); r.status != 200 || string(r.body) != `{"status":"ok"}` {
		t.Errorf("healthz %d %s", r.status, r.body)
	}
	if r := h.do("GET", "/openapi.yaml", "", nil); r.status != 200 || !strings.HasPrefix(string(r.body), "openapi: 3.1") {
		t.Errorf("openapi.yaml %d", r.status)
	}
	problem(t, h.do("GET", "/nope", "", nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/x/y/z", "", nil), 404, "not_found")
	r := h.do("PATCH", "/batches", "", nil)
	problem(t, r, 405, "method_not_allowed")
	if got := r.header.Get("Allow"); got != "GET, HEAD, POST" {
		t.Errorf("Allow = %q", got)
	}

	// The body limit, before and after authentication.
	o := h.createOrg("Acme", false, "")
	big := `{"name":"` + strings.Repeat("x", 2000) + `"}`
	problem(t, h.do("POST", "/batches", o.token, big), 413, "payload_too_large")
	problem(t, h.do("POST", "/batches", "", big), 413, "payload_too_large")

	// X-Request-Id: a sane one is echoed, anything else replaced.
	for sent, kept := range map[string]bool{"abc-123.X_y": true, strings.Repeat("a", 65): false, "a b": false} {
		req, _ := http.NewRequest("GET", h.base+"/healthz", nil)
		req.Header.Set("X-Request-Id", sent)
		res, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if got := res.Header.Get("X-Request-Id"); (got == sent) != kept || got == "" {
			t.Errorf("sent %q, got %q", sent, got)
		}
	}
}
