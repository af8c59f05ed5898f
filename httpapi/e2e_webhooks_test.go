package httpapi_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// webhookWire is an endpoint as the API writes it; ok refuses any other field.
type webhookWire struct {
	ID             string   `json:"id"`
	OrganisationID string   `json:"organisationId"`
	URL            string   `json:"url"`
	Events         []string `json:"events"`
	Enabled        bool     `json:"enabled"`
	DisabledReason string   `json:"disabledReason"`
	Secret         string   `json:"secret"`
	FailingSince   string   `json:"failingSince"`
	CreatedAt      string   `json:"createdAt"`
	UpdatedAt      string   `json:"updatedAt"`
}

type deliveryWire struct {
	ID             string `json:"id"`
	WebhookID      string `json:"webhookId"`
	Type           string `json:"type"`
	ResourceID     string `json:"resourceId"`
	EventAt        string `json:"eventAt"`
	Status         string `json:"status"`
	Attempts       int    `json:"attempts"`
	NextAttemptAt  string `json:"nextAttemptAt"`
	LastStatusCode int    `json:"lastStatusCode"`
	LastError      string `json:"lastError"`
	CreatedAt      string `json:"createdAt"`
	DeliveredAt    string `json:"deliveredAt"`
}

// startWebhooksOn is startDefaultOn with endpoints on 127.0.0.1 allowed, as
// --webhook-allow-private does, set before the server takes a request.
func startWebhooksOn(t *testing.T, open opener) *harness {
	t.Helper()
	c := &clock{now: time.Date(2026, 11, 22, 10, 15, 30, 123456000, time.UTC)}
	store := open(t)
	svc := disburse.NewService(store)
	svc.Clock, svc.Log = c.Now, e2eLogger()
	hooks := webhooks.New(store.Webhooks(), svc)
	hooks.Config.AllowPrivate = true
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg := httpapi.Config{AdminToken: adminToken, Log: e2eLogger(), Webhooks: hooks, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(),
		OperatorStore: store}
	srv := &http.Server{Handler: httpapi.New(svc, cfg), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	h := &harness{t: t, base: "http://" + ln.Addr().String(), svc: svc, hooks: hooks, clock: c,
		client: &http.Client{Transport: validatingTransport{t}}}
	t.Cleanup(func() {
		if !t.Failed() {
			h.checkLedger()
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-served; !errors.Is(err, http.ErrServerClosed) {
			t.Errorf("serve: %v", err)
		}
	})
	return h
}

// TestE2EWebhooks: the /webhooks routes and the operator's, over HTTP, and
// one delivery to a receiver on 127.0.0.1 that checks its signature with a
// Standard Webhooks library and finds the batch as GET /batches/{id} shows it.
func TestE2EWebhooks(t *testing.T) { eachStore(t, testE2EWebhooks) }

func testE2EWebhooks(t *testing.T, store opener) {
	h := startWebhooksOn(t, store)
	a := h.createOrg("A", false, "1000.00")
	b := h.createOrg("B", false, "")

	var mu sync.Mutex
	var got []*http.Request
	var bodies [][]byte
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got, bodies = append(got, r), append(bodies, body)
		mu.Unlock()
	}))
	defer rcv.Close()

	r := h.do("POST", "/webhooks", a.token, map[string]any{"url": rcv.URL + "/hook", "events": []string{"batch.submitted", "batch.closed"}})
	created := ok[webhookWire](t, r, 201)
	if r.header.Get("Location") != "/webhooks/"+created.ID {
		t.Errorf("Location = %q", r.header.Get("Location"))
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(created.Secret, "whsec_"))
	if !strings.HasPrefix(created.Secret, "whsec_") || err != nil || len(key) < 24 {
		t.Errorf("secret %q", created.Secret)
	}
	want := webhookWire{ID: created.ID, URL: rcv.URL + "/hook", Events: []string{"batch.submitted", "batch.closed"}, Enabled: true,
		CreatedAt: "2026-11-22T10:15:30.1234560", UpdatedAt: "2026-11-22T10:15:30.1234560"}
	if diff := cmp.Diff(want, ok[webhookWire](t, h.do("GET", "/webhooks/"+created.ID, a.token, nil), 200)); diff != "" {
		t.Errorf("GET /webhooks/{id} (-want +got), the secret never shown again:\n%s", diff)
	}
	if diff := cmp.Diff([]webhookWire{want}, ok[[]webhookWire](t, h.do("GET", "/webhooks", a.token, nil), 200)); diff != "" {
		t.Errorf("GET /webhooks (-want +got):\n%s", diff)
	}
	if list := ok[[]webhookWire](t, h.do("GET", "/webhooks", b.token, nil), 200); len(list) != 0 {
		t.Errorf("B lists %v", list)
	}

	// Bad input: 400 arrays, every failure at once; nothing stored.
	wantFailures(t, h.do("POST", "/webhooks", a.token, `{"url":"ftp://x.example.com","events":["batch.closed","batch.exploded"]}`),
		failure{FieldName: "Url", FieldValue: "ftp://x.example.com"}, failure{FieldName: "Events", FieldValue: "batch.exploded"})
	wantFailures(t, h.do("POST", "/webhooks", a.token, `{"url":5}`), failure{FieldName: "Url", FieldValue: "5"})
	wantFailures(t, h.do("PUT", "/webhooks/"+created.ID, a.token, `{"url":"relative/path"}`), failure{FieldName: "Url", FieldValue: "relative/path"})
	problem(t, h.do("POST", "/webhooks", "", `{"url":"https://x.example.com"}`), 401, "unauthorized")

	// Another organisation's endpoint is a 404 on every route.
	for _, rt := range []struct{ method, path, body string }{
		{"GET", "/webhooks/" + created.ID, ""},
		{"PUT", "/webhooks/" + created.ID, `{"url":"https://x.example.com"}`},
		{"DELETE", "/webhooks/" + created.ID, ""},
		{"POST", "/webhooks/" + created.ID + "/rotateSecret", ""},
		{"GET", "/webhooks/" + created.ID + "/deliveries", ""},
		{"GET", "/webhooks/not-an-id", ""},
	} {
		var body any
		if rt.body != "" {
			body = rt.body
		}
		problem(t, h.do(rt.method, rt.path, b.token, body), 404, "not_found")
	}

	// A submit to a member closes the batch: two events, one request each.
	batch := h.createBatch(a, "payroll")
	ok[map[string]any](t, h.register(member, false), 201)
	ok[Batch](t, h.addPayments(a, batch.ID, false, pay(member, "10")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+batch.ID+"/submit", a.token, nil), 200)
	n, err := h.hooks.Deliver(t.Context(), notify.NewWebhook(true), httpapi.WebhookRenderer{}, "e2e", webhooks.DefaultPolicy)
	if err != nil || n != 2 {
		t.Fatalf("Deliver = %d, %v; want 2", n, err)
	}
	verifier, err := standardwebhooks.NewWebhook(created.Secret)
	if err != nil {
		t.Fatal(err)
	}
	asRead := h.do("GET", "/batches/"+batch.ID, a.token, nil)
	var readBack any
	if err := json.Unmarshal(asRead.body, &readBack); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	if len(got) != 2 {
		t.Fatalf("receiver got %d requests, want 2", len(got))
	}
	var types []string // the two are sent at once: in either order
	for i, req := range got {
		// The harness's clock is days from the library's: the timestamp is
		// checked here, the signature by the library.
		if ts := req.Header.Get("webhook-timestamp"); ts != strconv.FormatInt(h.clock.Now().Unix(), 10) {
			t.Errorf("webhook-timestamp %s, want the clock's %d", ts, h.clock.Now().Unix())
		}
		if err := verifier.VerifyIgnoringTimestamp(bodies[i], req.Header); err != nil {
			t.Errorf("signature of %s: %v", bodies[i], err)
		}
		var event struct {
			Type      string `json:"type"`
			Timestamp string `json:"timestamp"`
			Data      any    `json:"data"`
		}
		if err := json.Unmarshal(bodies[i], &event); err != nil {
			t.Fatal(err)
		}
		types = append(types, event.Type)
		if event.Timestamp != "2026-11-22T10:15:30.1234560" {
			t.Errorf("event %d: %s", i, bodies[i])
		}
		if diff := cmp.Diff(readBack, event.Data); diff != "" {
			t.Errorf("data is not the batch as GET shows it (-get +data):\n%s", diff)
		}
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"batch.closed", "batch.submitted"}) {
		t.Errorf("events %v, want batch.submitted and batch.closed", types)
	}
	mu.Unlock()
	log := ok[[]deliveryWire](t, h.do("GET", "/webhooks/"+created.ID+"/deliveries", a.token, nil), 200)
	if len(log) != 2 || log[0].Status != "DELIVERED" || log[0].Attempts != 1 || log[0].LastStatusCode != 200 || log[0].ResourceID != batch.ID || log[0].DeliveredAt == "" {
		t.Errorf("delivery log %+v", log)
	}
	wantFailures(t, h.do("GET", "/webhooks/"+created.ID+"/deliveries?take=0", a.token, nil), failure{FieldName: "Take", FieldValue: "0"})
	retried := ok[deliveryWire](t, h.do("POST", "/webhooks/"+created.ID+"/deliveries/"+log[0].ID+"/retry", a.token, nil), 202)
	if retried.Status != "PENDING" || retried.NextAttemptAt == "" {
		t.Errorf("retried delivery %+v", retried)
	}
	problem(t, h.do("POST", "/webhooks/"+created.ID+"/deliveries/"+disburse.NewID()+"/retry", a.token, nil), 404, "not_found")

	// Rotation: a new secret, shown once.
	rotated := ok[webhookWire](t, h.do("POST", "/webhooks/"+created.ID+"/rotateSecret", a.token, nil), 200)
	if rotated.Secret == "" || rotated.Secret == created.Secret {
		t.Errorf("rotated secret %q", rotated.Secret)
	}
	// PUT replaces URL and events; none means every event.
	put := ok[webhookWire](t, h.do("PUT", "/webhooks/"+created.ID, a.token, map[string]any{"url": rcv.URL + "/v2"}), 200)
	if put.URL != rcv.URL+"/v2" || len(put.Events) != 0 || put.Events == nil || put.Secret != "" {
		t.Errorf("after PUT: %+v", put)
	}

	testE2EWebhookOperator(t, h, a, b, created.ID)
}

// testE2EWebhookOperator: the operator lists an organisation's endpoints
// (a's, none of b's) and disables one; the organisation sees why; the
// organisation deletes it.
func testE2EWebhookOperator(t *testing.T, h *harness, a, b org, id string) {
	t.Helper()
	problem(t, h.do("GET", "/admin/webhooks", a.token, nil), 401, "unauthorized")
	listed := ok[[]webhookWire](t, h.do("GET", "/admin/webhooks?organisationId="+a.ID, adminToken, nil), 200)
	if len(listed) != 1 || listed[0].OrganisationID != a.ID || listed[0].Secret != "" {
		t.Errorf("operator's list %+v", listed)
	}
	if none := ok[[]webhookWire](t, h.do("GET", "/admin/webhooks?organisationId="+b.ID, adminToken, nil), 200); len(none) != 0 {
		t.Errorf("B's endpoints %+v", none)
	}
	wantFailures(t, h.do("GET", "/admin/webhooks?organisationId=nope", adminToken, nil), failure{FieldName: "OrganisationId", FieldValue: "nope"})
	ok[webhookWire](t, h.do("POST", "/admin/webhooks/"+id+"/disable", adminToken, `{"reason":"answers 500 to everything"}`), 200)
	if got := ok[webhookWire](t, h.do("GET", "/webhooks/"+id, a.token, nil), 200); got.Enabled || got.DisabledReason != "answers 500 to everything" {
		t.Errorf("after the operator disabled it: %+v", got)
	}
	problem(t, h.do("POST", "/admin/webhooks/"+disburse.NewID()+"/disable", adminToken, nil), 404, "not_found")

	if r := h.do("DELETE", "/webhooks/"+id, a.token, nil); r.status != 204 || len(r.body) != 0 {
		t.Errorf("DELETE: %d %s", r.status, r.body)
	}
	problem(t, h.do("GET", "/webhooks/"+id, a.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/webhooks/"+id+"/deliveries", a.token, nil), 404, "not_found")
}

// TestE2EWebhookURLsMustBePublic: without --webhook-allow-private an
// endpoint on a loopback, private or link-local address, or plain http,
// is a 400 on Url.
func TestE2EWebhookURLsMustBePublic(t *testing.T) { eachStore(t, testE2EWebhookURLsMustBePublic) }

func testE2EWebhookURLsMustBePublic(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "")
	for _, url := range []string{"http://93.184.215.7/hook", "https://127.0.0.1:8443/hook", "https://localhost/hook",
		"https://192.168.1.10/hook", "https://169.254.169.254/latest/meta-data", "https://[fe80::1]/hook", "https://100.64.0.1/"} {
		wantFailures(t, h.do("POST", "/webhooks", a.token, map[string]string{"url": url}), failure{FieldName: "Url", FieldValue: url})
	}
	if list := ok[[]webhookWire](t, h.do("GET", "/webhooks", a.token, nil), 200); len(list) != 0 {
		t.Errorf("refused endpoints were stored: %+v", list)
	}
	ok[webhookWire](t, h.do("POST", "/webhooks", a.token, map[string]string{"url": "https://93.184.215.7/hook"}), 201)
}
