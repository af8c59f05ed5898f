package httpapi_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// Dated versions (docs/versioning.md): the first, 2026-11-01, without a
// header; 2026-12-01 by header or by the organisation's default. Every
// exchange is checked against the document of its answer's version.

const newVersion = "2026-12-01"

// doIn is h.do with Disburse-Version: version ("" for none), and a body as is.
func (h *harness) doIn(version, method, path, token string, body string) response {
	h.t.Helper()
	return h.doInKeyed(version, method, path, token, body, "")
}

// doInKeyed is doIn with an Idempotency-Key ("" for none).
func (h *harness) doInKeyed(version, method, path, token, body, key string) response {
	h.t.Helper()
	header := http.Header{}
	if version != "" {
		header.Set("Disburse-Version", version)
	}
	if key != "" {
		header.Set("Idempotency-Key", key)
	}
	var sent any
	if body != "" {
		sent = body
	}
	auth := ""
	if token != "" {
		auth = "Bearer " + token
	}
	return h.sendWith(method, path, auth, sent, header)
}

func wantVersion(t *testing.T, r response, want string) {
	t.Helper()
	if got := r.header.Get("Disburse-Version"); got != want {
		t.Errorf("Disburse-Version = %q, want %q", got, want)
	}
}

type page[T any] struct {
	Data       []T     `json:"data"`
	HasMore    bool    `json:"hasMore"`
	NextCursor *string `json:"nextCursor"`
}

// TestE2EVersionHeader: the header picks the version, the answer names
// it, an unknown one is a 400 on it; 2026-12-01's date-times end in Z.
func TestE2EVersionHeader(t *testing.T) { eachStore(t, testE2EVersionHeader) }

func testE2EVersionHeader(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "100.00")
	b := h.createBatch(a, "one")

	first := h.doIn("", "GET", "/batches/"+b.ID, a.token, "")
	wantVersion(t, first, "2026-11-01")
	if got := ok[Batch](t, first, 200).CreatedAt; got != "2026-11-22T10:15:30.1234560" {
		t.Errorf("first version createdAt = %q", got)
	}
	second := h.doIn(newVersion, "GET", "/batches/"+b.ID, a.token, "")
	wantVersion(t, second, newVersion)
	if got := ok[Batch](t, second, 200).CreatedAt; got != "2026-11-22T10:15:30.1234560Z" {
		t.Errorf("2026-12-01 createdAt = %q, want Z", got)
	}
	// Everywhere: a list of payments too, whose JSON is written by hand.
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "10")), 200)
	if got := ok[page[Payment]](t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments", a.token, ""), 200).Data[0].CreatedAt; got != "2026-11-22T10:15:30.1234560Z" {
		t.Errorf("payment createdAt = %q, want Z", got)
	}
	// The submit's answer streams its payments; a replay is rebuilt.
	for range 2 {
		submitted := ok[Batch](t, h.doInKeyed(newVersion, "POST", "/batches/"+b.ID+"/submit", a.token, "", "submit-"+b.ID), 200)
		if !strings.HasSuffix(submitted.SubmittedAt, "Z") || len(submitted.Payments) != 1 || !strings.HasSuffix(submitted.Payments[0].SubmittedAt, "Z") {
			t.Errorf("submit in 2026-12-01: %+v", submitted)
		}
	}
	// Text that merely looks like a date-time is text, never changed.
	stamp := "2026-11-22T10:15:30.1234560"
	named := ok[Batch](t, h.doIn(newVersion, "POST", "/batches", a.token, `{"name":"`+stamp+`","externalId":"`+stamp+`"}`), 201)
	if named.Name != stamp || named.ExternalID != stamp {
		t.Errorf("name %q, externalId %q: changed", named.Name, named.ExternalID)
	}

	for _, path := range []string{"/batches/" + b.ID, "/healthz", "/admin/organisations"} {
		r := h.doIn("2027-01-01", "GET", path, a.token, "")
		wantFailures(t, r, failure{FieldName: "Disburse-Version", FieldValue: "2027-01-01"})
	}

	doc := h.doIn("", "GET", "/openapi.yaml?version="+newVersion, "", "")
	if doc.status != 200 || !strings.Contains(string(doc.body), `version: "2026-12-01"`) {
		t.Errorf("openapi.yaml?version=%s: %d", newVersion, doc.status)
	}
	if doc := h.doIn("", "GET", "/openapi.yaml", "", ""); !strings.Contains(string(doc.body), `version: "1"`) {
		t.Errorf("openapi.yaml without a version is not the first version's")
	}
	wantFailures(t, h.doIn("", "GET", "/openapi.yaml?version=2020-01-01", "", ""), failure{FieldName: "Version", FieldValue: "2020-01-01"})
}

// TestE2EVersionDefault: an organisation's default version answers its
// requests without a header; the operator sets it at creation or later.
func TestE2EVersionDefault(t *testing.T) { eachStore(t, testE2EVersionDefault) }

func testE2EVersionDefault(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	wantFailures(t, h.doIn("", "POST", "/admin/organisations", adminToken, `{"name":"Bad","apiVersion":"2026-13-01"}`),
		failure{FieldName: "ApiVersion", FieldValue: "2026-13-01"})

	created := h.doIn(newVersion, "POST", "/admin/organisations", adminToken, `{"name":"New","apiVersion":"2026-12-01"}`)
	var o struct {
		ID         string `json:"id"`
		APIVersion string `json:"apiVersion"`
	}
	if err := json.Unmarshal(created.body, &o); err != nil || created.status != 201 {
		t.Fatalf("create: %d %s", created.status, created.body)
	}
	read := h.doIn(newVersion, "GET", "/admin/organisations/"+o.ID, adminToken, "")
	if err := json.Unmarshal(read.body, &o); err != nil || o.APIVersion != newVersion {
		t.Fatalf("read in 2026-12-01: %s", read.body)
	}
	if first := h.doIn("", "GET", "/admin/organisations/"+o.ID, adminToken, ""); strings.Contains(string(first.body), "apiVersion") {
		t.Errorf("the first version's answer shows apiVersion: %s", first.body)
	}
	key := ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	token := h.token(key.APIKey)

	r := h.doIn("", "GET", "/batches", token, "")
	wantVersion(t, r, newVersion)
	ok[page[Batch]](t, r, 200)
	wantVersion(t, h.doIn("2026-11-01", "GET", "/batches", token, ""), "2026-11-01") // the header wins

	ok[map[string]any](t, h.doIn("", "PUT", "/admin/organisations/"+o.ID+"/settings", adminToken, `{"apiVersion":"2026-11-01"}`), 200)
	r = h.doIn("", "GET", "/batches", token, "")
	wantVersion(t, r, "2026-11-01")
	ok[[]Batch](t, r, 200)
	wantFailures(t, h.doIn("", "PUT", "/admin/organisations/"+o.ID+"/settings", adminToken, `{"apiVersion":"latest"}`),
		failure{FieldName: "ApiVersion", FieldValue: "latest"})
}

// TestE2EVersionCursorPages: 2026-12-01 pages a list by cursor to its
// last page; skip and take, and a cursor altered or of other filters,
// are 400s.
func TestE2EVersionCursorPages(t *testing.T) { eachStore(t, testE2EVersionCursorPages) }

func testE2EVersionCursorPages(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "1000.00")
	b := h.createBatch(a, "paged")
	var payments []string
	for range 7 {
		payments = append(payments, pay(member, "1"))
	}
	ok[Batch](t, h.addPayments(a, b.ID, false, payments...), 200)
	var want []string
	for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200) {
		want = append(want, p.ID)
	}

	var got []string
	var sizes []int
	path := "/batches/" + b.ID + "/payments?limit=3"
	var last page[Payment]
	for range 10 { // bounded: three pages are due
		last = ok[page[Payment]](t, h.doIn(newVersion, "GET", path, a.token, ""), 200)
		sizes = append(sizes, len(last.Data))
		for _, p := range last.Data {
			got = append(got, p.ID)
		}
		if !last.HasMore {
			break
		}
		path = "/batches/" + b.ID + "/payments?limit=3&cursor=" + *last.NextCursor
	}
	if !slices.Equal(sizes, []int{3, 3, 1}) || !slices.Equal(got, want) {
		t.Errorf("pages of %v, ids %v; want pages of 3, 3, 1 with %v", sizes, got, want)
	}
	if last.NextCursor != nil {
		t.Errorf("last page's nextCursor = %q, want null", *last.NextCursor)
	}
	// A full last page: hasMore false all the same.
	if full := ok[page[Payment]](t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments?limit=7", a.token, ""), 200); full.HasMore || len(full.Data) != 7 {
		t.Errorf("limit 7 of 7: hasMore %v, %d items", full.HasMore, len(full.Data))
	}

	first := ok[page[Payment]](t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments?limit=3", a.token, ""), 200)
	cursor := *first.NextCursor
	tampered := cursor[:len(cursor)-2] + map[bool]string{true: "AA", false: "BB"}[!strings.HasSuffix(cursor, "AA")]
	wantFailures(t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments?cursor="+tampered, a.token, ""),
		failure{FieldName: "Cursor", FieldValue: tampered})
	wantFailures(t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments?statusCode=DRAFT&cursor="+cursor, a.token, ""),
		failure{FieldName: "Cursor", FieldValue: cursor})
	wantFailures(t, h.doIn(newVersion, "GET", "/batches?cursor="+cursor, a.token, ""), failure{FieldName: "Cursor", FieldValue: cursor})
	wantFailures(t, h.doIn(newVersion, "GET", "/batches/"+b.ID+"/payments?skip=1&take=2", a.token, ""),
		failure{FieldName: "Skip", FieldValue: "1"}, failure{FieldName: "Take", FieldValue: "2"})
	wantFailures(t, h.doIn(newVersion, "GET", "/batches?limit=1001", a.token, ""), failure{FieldName: "Limit", FieldValue: "1001"})

	// Batches, newest first, by cursor too.
	h.createBatch(a, "second")
	h.createBatch(a, "third")
	var names []string
	path = "/batches?limit=2"
	for range 5 {
		p := ok[page[Batch]](t, h.doIn(newVersion, "GET", path, a.token, ""), 200)
		for _, b := range p.Data {
			names = append(names, b.Name)
		}
		if !p.HasMore {
			break
		}
		path = "/batches?limit=2&cursor=" + *p.NextCursor
	}
	if !slices.Equal(names, []string{"third", "second", "paged"}) {
		t.Errorf("batches by cursor: %v", names)
	}
	// The audit log pages the same way.
	audit := ok[page[map[string]any]](t, h.doIn(newVersion, "GET", "/audit?limit=1", a.token, ""), 200)
	if len(audit.Data) != 1 || !audit.HasMore {
		t.Errorf("audit page: %d entries, hasMore %v", len(audit.Data), audit.HasMore)
	}
}

// TestE2EVersionStrictBodies: in 2026-12-01 a member the body does not
// know is a 400 naming it; clearExisting may be left out. The first
// version ignores the member and requires clearExisting.
func TestE2EVersionStrictBodies(t *testing.T) { eachStore(t, testE2EVersionStrictBodies) }

func testE2EVersionStrictBodies(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", true, "1000.00")
	b := h.createBatch(a, "strict")
	misspelt := `{"payments":[{"msisdn":"` + member + `","amount":10,"referalAmount":5}],"clearExisting":false,"dryRun":true}`
	wantFailures(t, h.doIn(newVersion, "POST", "/batches/"+b.ID+"/payments", a.token, misspelt),
		failure{FieldName: "referalAmount", FieldValue: "5", Index: at(0)}, failure{FieldName: "dryRun", FieldValue: "true"})
	if got := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200); len(got) != 0 {
		t.Errorf("the refused add stored %d payments", len(got))
	}
	wantFailures(t, h.doIn(newVersion, "POST", "/batches", a.token, `{"name":"x","nmae":"y"}`), failure{FieldName: "nmae", FieldValue: "y"})

	// clearExisting: optional in 2026-12-01, required in the first version.
	added := ok[Batch](t, h.doIn(newVersion, "POST", "/batches/"+b.ID+"/payments", a.token, `{"payments":[`+pay(member, "10")+`]}`), 200)
	if len(added.Payments) != 1 {
		t.Fatalf("added %d", len(added.Payments))
	}
	ok[Batch](t, h.doIn(newVersion, "POST", "/batches/"+b.ID+"/payments", a.token, `{"payments":[`+pay(member, "20")+`]}`), 200)
	if got := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200); len(got) != 2 {
		t.Errorf("clearExisting left out cleared: %d payments, want 2", len(got))
	}
	wantFailures(t, h.doIn("", "POST", "/batches/"+b.ID+"/payments", a.token, `{"payments":[`+pay(member, "10")+`]}`),
		failure{FieldName: "ClearExisting"})
	// The first version ignores an unknown member.
	ok[Batch](t, h.doIn("", "POST", "/batches/"+b.ID+"/payments", a.token,
		`{"clearExisting":false,"dryRun":true,"payments":[`+pay(member, "30")+`]}`), 200)
}

// TestE2EVersionWebhookBodies: a webhook body is written in its
// endpoint's version, set at its creation: by default the organisation's.
func TestE2EVersionWebhookBodies(t *testing.T) { eachStore(t, testE2EVersionWebhookBodies) }

func testE2EVersionWebhookBodies(t *testing.T, store opener) {
	h := startWebhooksOn(t, store)
	a := h.createOrg("A", false, "1000.00")
	var mu sync.Mutex
	bodies := map[string]string{} // by path
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies[r.URL.Path] = string(body)
		mu.Unlock()
	}))
	defer rcv.Close()
	hook := func(version, path string) {
		body := `{"url":"` + rcv.URL + path + `","events":["batch.submitted"]`
		if version != "" {
			body += `,"apiVersion":"` + version + `"`
		}
		ok[webhookWire](t, h.doIn("", "POST", "/webhooks", a.token, body+`}`), 201)
	}
	hook("", "/first")
	hook(newVersion, "/second")
	ok[map[string]any](t, h.doIn("", "PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"apiVersion":"2026-12-01"}`), 200)
	hook("", "/default") // the organisation's default, now 2026-12-01

	batch := h.createBatch(a, "payroll")
	ok[map[string]any](t, h.register(member, false), 201)
	ok[Batch](t, h.addPayments(a, batch.ID, false, pay(member, "10")), 200)
	ok[Batch](t, h.doIn("2026-11-01", "POST", "/batches/"+batch.ID+"/submit", a.token, ""), 200)
	if n, err := h.hooks.Deliver(t.Context(), notify.NewWebhook(true), httpapi.WebhookRenderer{}, "e2e", webhooks.DefaultPolicy); err != nil || n != 3 {
		t.Fatalf("Deliver = %d, %v; want 3", n, err)
	}
	mu.Lock()
	defer mu.Unlock()
	for path, zulu := range map[string]bool{"/first": false, "/second": true, "/default": true} {
		var event struct {
			Timestamp string `json:"timestamp"`
			Data      struct {
				CreatedAt string `json:"createdAt"`
			} `json:"data"`
		}
		if err := json.Unmarshal([]byte(bodies[path]), &event); err != nil {
			t.Fatalf("%s: %v: %q", path, err, bodies[path])
		}
		if strings.HasSuffix(event.Timestamp, "Z") != zulu || strings.HasSuffix(event.Data.CreatedAt, "Z") != zulu {
			t.Errorf("%s: timestamp %q, createdAt %q; Z wanted: %v", path, event.Timestamp, event.Data.CreatedAt, zulu)
		}
	}
}
