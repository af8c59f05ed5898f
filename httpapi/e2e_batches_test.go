package httpapi_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var zeroSummary = Summary{
	PaymentsAmount: "0.00", ReferralsAmount: "0.00", SettledAmount: "0.00",
	CancelledAmount: "0.00", PendingAmount: "0.00",
}

// keysOf lists the members of a JSON object, to check what is omitted.
func keysOf(t *testing.T, raw []byte) []string {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// TestE2EBatchLifecycle: create, read, update and the state rules of docs/api.md section 4.
func TestE2EBatchLifecycle(t *testing.T) { eachStore(t, testE2EBatchLifecycle) }

func testE2EBatchLifecycle(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "")

	r := h.do("POST", "/batches", a.token, `{"name":"November","externalId":"nov-1"}`)
	b := ok[Batch](t, r, 201)
	if got := r.header.Get("Location"); got != "/batches/"+b.ID {
		t.Errorf("Location = %q", got)
	}
	want := Batch{ID: b.ID, Name: "November", ExternalID: "nov-1", AccountID: a.Accounts[0].ID, StatusCode: "DRAFT", CreatedAt: b.CreatedAt, Summary: &zeroSummary}
	if diff := cmp.Diff(want, b); diff != "" {
		t.Errorf("created (-want +got):\n%s", diff)
	}
	wantTime(t, "createdAt", b.CreatedAt, h.clock.Now())
	if diff := cmp.Diff(want, ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200)); diff != "" {
		t.Errorf("GET (-want +got):\n%s", diff)
	}

	// Absent values are omitted: no externalId, submittedAt or payments.
	r = h.do("POST", "/batches", a.token, `{"name":"No external id"}`)
	if diff := cmp.Diff([]string{"accountId", "createdAt", "id", "name", "statusCode", "summary"}, keysOf(t, r.body)); diff != "" {
		t.Errorf("members (-want +got):\n%s", diff)
	}

	// Validation: every failure of the request in one array.
	wantFailures(t, h.do("POST", "/batches", a.token, `{}`), failure{"Name", "", nil})
	wantFailures(t, h.do("POST", "/batches", a.token, `{"name":"   "}`), failure{"Name", "   ", nil})
	long := strings.Repeat("n", 201)
	wantFailures(t, h.do("POST", "/batches", a.token, `{"name":"`+long+`","externalId":"`+long[:101]+`"}`),
		failure{"Name", long, nil}, failure{"ExternalId", long[:101], nil})
	ok[Batch](t, h.do("POST", "/batches", a.token, `{"name":"`+long[:200]+`","externalId":"`+long[:100]+`"}`), 201)
	wantFailures(t, h.do("POST", "/batches", a.token, `{"name":5}`), failure{"Name", "5", nil})
	wantFailures(t, h.do("POST", "/batches", a.token, `{"name":"x"`), failure{"Body", "", nil})
	wantFailures(t, h.do("POST", "/batches", a.token, `["x"]`), failure{"Body", "array", nil})

	// accountId: one of the organisation's payout accounts, never another's.
	payroll := ok[Account](t, h.do("POST", "/admin/organisations/"+a.ID+"/accounts", adminToken, `{"name":"Payroll"}`), 201)
	if diff := cmp.Diff(Account{ID: payroll.ID, Name: "Payroll", Currency: "KES", Balance: "0.00", HeldBalance: "0.00"}, payroll); diff != "" {
		t.Errorf("account (-want +got):\n%s", diff)
	}
	wantFailures(t, h.do("POST", "/admin/organisations/"+a.ID+"/accounts", adminToken, `{}`), failure{"Name", "", nil})
	onPayroll := ok[Batch](t, h.do("POST", "/batches", a.token, map[string]string{"name": "p", "accountId": payroll.ID}), 201)
	if onPayroll.AccountID != payroll.ID {
		t.Errorf("accountId = %s, want %s", onPayroll.AccountID, payroll.ID)
	}
	other := h.createOrg("Other", false, "")
	for _, id := range []string{other.Accounts[0].ID, "nope"} {
		wantFailures(t, h.do("POST", "/batches", a.token, map[string]string{"name": "x", "accountId": id}), failure{"AccountId", id, nil})
	}

	// PUT replaces name and externalId (an absent one clears it); DRAFT only.
	h.clock.Advance(time.Minute)
	u := ok[Batch](t, h.do("PUT", "/batches/"+b.ID, a.token, `{"name":"December","accountId":"`+payroll.ID+`"}`), 200)
	want.Name, want.ExternalID = "December", ""
	if diff := cmp.Diff(want, u); diff != "" {
		t.Errorf("updated (-want +got):\n%s", diff)
	}
	wantFailures(t, h.do("PUT", "/batches/"+b.ID, a.token, `{"name":""}`), failure{"Name", "", nil})
	wantFailures(t, h.do("PUT", "/batches/"+b.ID, a.token, `nope`), failure{"Body", "", nil})

	// The status code lists, exactly.
	if diff := cmp.Diff([]string{"DRAFT", "OPEN", "CLOSED", "CANCELLED"}, ok[[]string](t, h.do("GET", "/batches/statusCodes", a.token, nil), 200)); diff != "" {
		t.Errorf("batch status codes (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"DRAFT", "PENDING", "CANCELLED", "SETTLED", "DELETED"}, ok[[]string](t, h.do("GET", "/payments/statusCodes", a.token, nil), 200)); diff != "" {
		t.Errorf("payment status codes (-want +got):\n%s", diff)
	}

	// After cancel, nothing but reads: update, add, submit, cancel are 409.
	ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/cancel", a.token, nil), 200)
	problem(t, h.do("PUT", "/batches/"+b.ID, a.token, `{"name":"x"}`), 409, "invalid_state")
	problem(t, h.addPayments(a, b.ID, false, pay("254712345678", "10")), 409, "invalid_state")
	problem(t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 409, "invalid_state")
	problem(t, h.do("POST", "/batches/"+b.ID+"/cancel", a.token, nil), 409, "invalid_state")
}

// TestE2EListBatches: newest first, filters, paging and bad values (docs/api.md section 4).
func TestE2EListBatches(t *testing.T) { eachStore(t, testE2EListBatches) }

func testE2EListBatches(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "")
	var ids []string
	for i, ext := range []string{"x", "y", "x", ""} {
		h.clock.Advance(time.Second)
		b := ok[Batch](t, h.do("POST", "/batches", a.token, map[string]string{"name": "b" + string(rune('0'+i)), "externalId": ext}), 201)
		ids = append(ids, b.ID)
	}
	ok[Batch](t, h.do("POST", "/batches/"+ids[1]+"/cancel", a.token, nil), 200)
	h.createBatch(h.createOrg("Other", false, ""), "not yours")

	list := func(query string) []string {
		t.Helper()
		r := h.do("GET", "/batches"+query, a.token, nil)
		var out []string
		for _, b := range ok[[]Batch](t, r, 200) {
			if b.Payments != nil || b.Summary == nil {
				t.Errorf("list item %s: payments %v, summary %v", b.ID, b.Payments, b.Summary)
			}
			out = append(out, b.ID)
		}
		return out
	}
	for _, tt := range []struct {
		query string
		want  []string
	}{
		{"", []string{ids[3], ids[2], ids[1], ids[0]}},
		{"?statusCode=DRAFT", []string{ids[3], ids[2], ids[0]}},
		{"?statusCode=CANCELLED", []string{ids[1]}},
		{"?statusCode=OPEN", nil},
		{"?externalId=x", []string{ids[2], ids[0]}},
		{"?externalId=x&statusCode=DRAFT&take=1", []string{ids[2]}},
		{"?skip=1&take=2", []string{ids[2], ids[1]}},
		{"?skip=4", nil},
		{"?skip=0&take=1000", []string{ids[3], ids[2], ids[1], ids[0]}},
	} {
		if diff := cmp.Diff(tt.want, list(tt.query), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("GET /batches%s (-want +got):\n%s", tt.query, diff)
		}
	}
	if r := h.do("GET", "/batches?externalId=none", a.token, nil); string(r.body) != "[]" {
		t.Errorf("empty list = %s, want []", r.body)
	}

	for query, want := range map[string][]failure{
		"?take=0":                          {{"Take", "0", nil}},
		"?take=1001":                       {{"Take", "1001", nil}},
		"?take=abc":                        {{"Take", "abc", nil}},
		"?take=1.5":                        {{"Take", "1.5", nil}},
		"?skip=-1":                         {{"Skip", "-1", nil}},
		"?skip=x":                          {{"Skip", "x", nil}},
		"?statusCode=FOO":                  {{"StatusCode", "FOO", nil}},
		"?statusCode=draft":                {{"StatusCode", "draft", nil}},
		"?statusCode=DELETED":              {{"StatusCode", "DELETED", nil}},
		"?take=0&skip=-1&statusCode=FOO":   {{"Skip", "-1", nil}, {"Take", "0", nil}, {"StatusCode", "FOO", nil}},
		"?take=99999999999999999999999999": {{"Take", "99999999999999999999999999", nil}},
	} {
		if diff := cmp.Diff(want, failures(t, h.do("GET", "/batches"+query, a.token, nil))); diff != "" {
			t.Errorf("GET /batches%s (-want +got):\n%s", query, diff)
		}
	}
}
