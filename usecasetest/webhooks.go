package usecasetest

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/webhooks"
	"github.com/disburse/disburse/worker"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// RunWebhooks checks webhooks to organisations on a store: endpoints and
// their tenancy, the events each use case writes in its own transaction
// (and not when it rolls back), delivery to a real receiver on 127.0.0.1
// whose signatures a Standard Webhooks library verifies, before and after a
// rotation, retries with backoff until FAILED, timeouts, disablement of an
// endpoint that keeps failing, failed attempts counted and logged without
// their URL, and two workers that never send one
// delivery at once.
func RunWebhooks[S WebhookStore](t *testing.T, open func(t *testing.T) S) {
	tests := []struct {
		name string
		run  func(*testing.T, WebhookStore)
	}{
		{"EndpointsAndTenancy", testWebhookEndpoints},
		{"EndpointValidation", testWebhookValidation},
		{"EventsWithTheirChange", testWebhookEvents},
		{"NoEventsWhenTheChangeRollsBack", testWebhookEventsRollBack},
		{"ReferralLegEvents", testWebhookReferralEvents},
		{"LoopSendsEveryClaim", testWebhookLoop},
		{"SignaturesVerifyAcrossARotation", testWebhookSignatures},
		{"RetriesUntilFailed", testWebhookRetries},
		{"TimeoutIsAFailedAttempt", testWebhookTimeout},
		{"EndpointDisabledAfterFailing", testWebhookDisable},
		{"FailuresCountedAndLogged", testWebhookFailuresCounted},
		{"TwoWorkersNeverSendOneDeliveryAtOnce", func(t *testing.T, s WebhookStore) { testWebhookTwoWorkers(t, s, 12, 0) }},
		{"TwoConcurrentWorkersSendEachOnce", func(t *testing.T, s WebhookStore) { testWebhookTwoWorkers(t, s, 40, 4) }},
		{"AHangingEndpointHoldsOnlyItsOwnSlots", testWebhookHangingEndpoint},
		{"AnAttemptLongerThanTheLeaseIsSentOnce", testWebhookAttemptLongerThanTheLease},
		{"UnrecordedAttemptsWithinConcurrency", testWebhookUnrecordedAttemptsWithinConcurrency},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// webhookPolicy sends 4 at once, as a worker does, so that every test
// here also goes through the concurrent path.
var webhookPolicy = webhooks.Policy{RetryFor: time.Hour, BaseBackoff: time.Second, MaxBackoff: time.Minute,
	Lease: 30 * time.Second, SendTimeout: 10 * time.Second, BatchSize: 10, Concurrency: 4, DisableAfter: 2 * time.Hour}

// WebhookStore is a store that also hands over the webhooks package's
// port, as sqlstore.Store does.
type WebhookStore interface {
	disburse.Store
	Webhooks() webhooks.Store
}

// hookFixture is a fixture with the webhooks' service beside the domain's.
type hookFixture struct {
	*fixture
	hooks *webhooks.Service
}

// webhookFixture is a fixture whose webhooks' service lets endpoints be local.
func webhookFixture(t *testing.T, s WebhookStore) *hookFixture {
	t.Helper()
	f := strictWebhookFixture(t, s)
	f.hooks.Config.AllowPrivate = true
	return f
}

// strictWebhookFixture is a fixture whose webhooks' service takes only
// public https endpoints, as serve's does by default.
func strictWebhookFixture(t *testing.T, s WebhookStore) *hookFixture {
	t.Helper()
	f := newFixture(t, s)
	return &hookFixture{fixture: f, hooks: webhooks.New(s.Webhooks(), f.svc)}
}

func (f *hookFixture) endpoint(t *testing.T, url string, events ...string) webhooks.Endpoint {
	t.Helper()
	e, err := f.hooks.Create(f.ctx, f.org, webhooks.Input{URL: url, Events: events})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// deliveries lists the endpoint's deliveries oldest first, as "type resource".
func (f *hookFixture) deliveries(t *testing.T, e webhooks.Endpoint) []webhooks.Delivery {
	t.Helper()
	ds, err := f.hooks.Deliveries(f.ctx, f.org, e.ID, "")
	if err != nil {
		t.Fatal(err)
	}
	slices.Reverse(ds)
	return ds
}

func eventsOf(ds []webhooks.Delivery) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = string(d.EventType) + " " + d.ResourceID
	}
	return out
}

// sendWebhooks runs one delivery pass; want < 0 takes any number of attempts.
func (f *hookFixture) sendWebhooks(t *testing.T, owner string, want int) {
	t.Helper()
	n, err := f.hooks.Deliver(f.ctx, notify.NewWebhook(true), httpapi.WebhookRenderer{}, owner, webhookPolicy)
	if err != nil {
		t.Fatal(err)
	}
	if want >= 0 && n != want {
		t.Fatalf("Deliver attempted %d, want %d", n, want)
	}
}

func testWebhookEndpoints(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	e := f.endpoint(t, "https://hooks.example.com/disburse", "batch.submitted", "batch.submitted", "payment.settled")
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(e.Secret, "whsec_"))
	if !strings.HasPrefix(e.Secret, "whsec_") || err != nil || len(key) < 24 {
		t.Errorf("secret %q: want whsec_ and base64 of at least 24 bytes", e.Secret)
	}
	same(t, "events without repeats", []disburse.EventType{"batch.submitted", "payment.settled"}, e.Events)
	if !e.Enabled {
		t.Error("a new endpoint must be enabled")
	}
	got, err := f.hooks.Endpoint(f.ctx, f.org, e.ID)
	if err != nil || got.Secret != e.Secret || got.URL != e.URL {
		t.Fatalf("Webhook = %+v, %v", got, err)
	}

	// Another organisation sees nothing of it.
	other, _, err := organisations.Create(f.ctx, f.svc, organisations.NewOrganisation{Name: "Other Ltd"})
	if err != nil {
		t.Fatal(err)
	}
	for what, err := range map[string]error{
		"read":     second(f.hooks.Endpoint(f.ctx, other.ID, e.ID)),
		"update":   second(f.hooks.Update(f.ctx, other.ID, e.ID, webhooks.Input{URL: "https://x.example.com"})),
		"rotate":   second(f.hooks.RotateSecret(f.ctx, other.ID, e.ID)),
		"delete":   f.hooks.Delete(f.ctx, other.ID, e.ID),
		"list log": second(f.hooks.Deliveries(f.ctx, other.ID, e.ID, "")),
		"bad id":   second(f.hooks.Endpoint(f.ctx, f.org, "not-an-id")),
	} {
		if disburse.ErrorCode(err) != disburse.CodeNotFound {
			t.Errorf("%s of another organisation's webhook: %v, want not_found", what, err)
		}
	}
	if es, err := f.hooks.Endpoints(f.ctx, other.ID); err != nil || len(es) != 0 {
		t.Errorf("other organisation lists %v, %v", es, err)
	}

	// Update replaces URL and events; absent events means every event.
	off := false
	up, err := f.hooks.Update(f.ctx, f.org, e.ID, webhooks.Input{URL: "https://hooks.example.com/v2", Enabled: &off})
	if err != nil || up.URL != "https://hooks.example.com/v2" || len(up.Events) != 0 || up.Enabled {
		t.Fatalf("UpdateWebhook = %+v, %v", up, err)
	}
	if !up.Wants(disburse.EventBatchCancelled) {
		t.Error("an endpoint with no events must want every event")
	}

	// Rotation: a new secret, the old one kept for a day.
	rot, err := f.hooks.RotateSecret(f.ctx, f.org, e.ID)
	if err != nil || rot.Secret == e.Secret || rot.PreviousSecret != e.Secret || !rot.PreviousSecretUntil.Equal(f.now.Add(webhooks.SecretOverlap)) {
		t.Fatalf("RotateWebhookSecret = %+v, %v", rot, err)
	}

	// The operator lists every organisation's and can disable one.
	all, err := f.hooks.AllEndpoints(f.ctx, "")
	if err != nil || len(all) != 1 {
		t.Fatalf("AllWebhooks = %v, %v", all, err)
	}
	if none, err := f.hooks.AllEndpoints(f.ctx, other.ID); err != nil || len(none) != 0 {
		t.Errorf("AllWebhooks(other) = %v, %v", none, err)
	}
	on := true
	if _, err := f.hooks.Update(f.ctx, f.org, e.ID, webhooks.Input{URL: up.URL, Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	dis, err := f.hooks.Disable(f.ctx, e.ID, "")
	if err != nil || dis.Enabled || dis.DisabledReason == "" {
		t.Fatalf("DisableWebhook = %+v, %v", dis, err)
	}

	if err := f.hooks.Delete(f.ctx, f.org, e.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.hooks.Endpoint(f.ctx, f.org, e.ID); disburse.ErrorCode(err) != disburse.CodeNotFound {
		t.Errorf("read after delete: %v, want not_found", err)
	}
}

func second[T any](_ T, err error) error { return err }

func testWebhookValidation(t *testing.T, s WebhookStore) {
	f := strictWebhookFixture(t, s) // private addresses not allowed
	for _, tc := range []struct {
		url    string
		events []string
		fields []string
	}{
		{"", nil, []string{"Url"}},
		{"/relative", nil, []string{"Url"}},
		{"ftp://example.com/x", nil, []string{"Url"}},
		{"http://93.184.215.9/hook", nil, []string{"Url"}}, // plain http
		{"https://127.0.0.1/hook", nil, []string{"Url"}},
		{"https://10.1.2.3/hook", nil, []string{"Url"}},
		{"https://169.254.169.254/latest", nil, []string{"Url"}},
		{"https://[::1]/hook", nil, []string{"Url"}},
		{"https://user:pw@93.184.215.9/hook", nil, []string{"Url"}},
		{"https://93.184.215.9/hook", []string{"batch.closed", "batch.exploded", ""}, []string{"Events", "Events"}},
		{"mailto:a@b.c", []string{"nope"}, []string{"Url", "Events"}},
	} {
		_, err := f.hooks.Create(f.ctx, f.org, webhooks.Input{URL: tc.url, Events: tc.events})
		var e *disburse.Error
		if !errors.As(err, &e) || e.Code != disburse.CodeInvalid {
			t.Errorf("%q %v: %v, want invalid", tc.url, tc.events, err)
			continue
		}
		var fields []string
		for _, fe := range e.Fields {
			fields = append(fields, fe.FieldName)
		}
		same(t, tc.url+" failures", tc.fields, fields)
	}
	f.hooks.Config.LookupHost = func(context.Context, string) ([]netip.Addr, error) { return nil, errors.New("no such host") }
	if _, err := f.hooks.Create(f.ctx, f.org, webhooks.Input{URL: "https://nowhere.invalid/x"}); disburse.ErrorCode(err) != disburse.CodeInvalid {
		t.Errorf("a host that does not resolve: %v, want invalid", err)
	}
	if e, err := f.hooks.Create(f.ctx, f.org, webhooks.Input{URL: "https://93.184.215.9/hook"}); err != nil || !e.Enabled {
		t.Errorf("a public https URL: %+v, %v", e, err)
	}
	if es, _ := f.hooks.Endpoints(f.ctx, f.org); len(es) != 1 {
		t.Errorf("a refused endpoint was stored: %d endpoints", len(es))
	}
}

func testWebhookEvents(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	all := f.endpoint(t, "https://a.example.com/")
	settled := f.endpoint(t, "https://b.example.com/", "payment.settled")

	// Submit: one event for the batch, not one per payment.
	open := f.batchOf(t, 3)
	if _, err := f.svc.Submit(f.ctx, f.org, open); err != nil {
		t.Fatal(err)
	}
	same(t, "after submit", []string{"batch.submitted " + open}, eventsOf(f.deliveries(t, all)))
	// The payee registers: one payment.settled per payment, then the batch closes.
	f.advance(time.Minute)
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee}); err != nil {
		t.Fatal(err)
	}
	payments, err := lists.Payments(f.ctx, f.svc, f.org, open, disburse.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var wantSettled []string
	for _, p := range payments {
		wantSettled = append(wantSettled, "payment.settled "+p.ID)
	}
	got := eventsOf(f.deliveries(t, settled))
	slices.Sort(got)
	slices.Sort(wantSettled)
	same(t, "settled-only endpoint", wantSettled, got)
	if got := eventsOf(f.deliveries(t, all)); len(got) != 5 || got[4] != "batch.closed "+open {
		t.Errorf("every-event endpoint after registration: %v, want submitted, 3 settled, closed", got)
	}

	// A batch to a member closes at submit: submitted and closed.
	closed := f.batchOf(t, 1)
	if _, err := f.svc.Submit(f.ctx, f.org, closed); err != nil {
		t.Fatal(err)
	}
	// Cancelled from DRAFT, and from OPEN.
	draft := f.batchOf(t, 1)
	if _, err := f.svc.Cancel(f.ctx, f.org, draft); err != nil {
		t.Fatal(err)
	}
	other := f.batchTo(t, "447911123457", 1)
	if _, err := f.svc.Submit(f.ctx, f.org, other); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Cancel(f.ctx, f.org, other); err != nil {
		t.Fatal(err)
	}
	// Reversal at the end of the reversal period (an hour in the fixture).
	reversed := f.batchTo(t, "447911123458", 1)
	if _, err := f.svc.Submit(f.ctx, f.org, reversed); err != nil {
		t.Fatal(err)
	}
	f.advance(2 * time.Hour)
	if _, err := f.svc.ReverseDue(f.ctx); err != nil {
		t.Fatal(err)
	}
	rp, err := lists.Payments(f.ctx, f.svc, f.org, reversed, disburse.ListQuery{})
	if err != nil || len(rp) != 1 {
		t.Fatal(rp, err)
	}
	same(t, "every event after the rest", []string{
		"batch.submitted " + closed, "batch.closed " + closed,
		"batch.cancelled " + draft,
		"batch.submitted " + other, "batch.cancelled " + other,
		"batch.submitted " + reversed, "payment.reversed " + rp[0].ID, "batch.closed " + reversed,
	}, eventsOf(f.deliveries(t, all))[5:])
	if n := len(f.deliveries(t, settled)); n != 3 {
		t.Errorf("the settled-only endpoint has %d deliveries, want 3", n)
	}

	// A disabled endpoint gets no new deliveries.
	if _, err := f.hooks.Disable(f.ctx, all.ID, "testing"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	if n := len(f.deliveries(t, all)); n != 13 {
		t.Errorf("a disabled endpoint got deliveries: %d, want 13", n)
	}
}

func testWebhookEventsRollBack(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	e := f.endpoint(t, "https://a.example.com/")
	// A submit refused for want of float writes nothing, its event included.
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "too much"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	in := []disburse.PaymentInput{{Msisdn: racePayee, Amount: "1000000"}}
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, b.ID); disburse.ErrorCode(err) != disburse.CodeInsufficientFloat {
		t.Fatalf("submit: %v, want insufficient_float", err)
	}
	// Events written by a transaction that then fails are gone with it.
	boom := errors.New("boom")
	err = s.Write(f.ctx, func(tx disburse.Tx) error {
		n, err := tx.InsertWebhookEvents(f.ctx, []disburse.WebhookEvent{{OrganisationID: f.org, Type: disburse.EventBatchClosed, ResourceID: b.ID, At: f.now}})
		if err != nil || n != 1 {
			t.Errorf("InsertWebhookEvents = %d, %v; want 1 delivery", n, err)
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if ds := f.deliveries(t, e); len(ds) != 0 {
		t.Errorf("rolled back changes left deliveries: %v", eventsOf(ds))
	}
}

// receiver is a real endpoint on 127.0.0.1 that records what it gets and
// answers with status(n) for the n-th request (from 1).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	requests []receivedRequest
}

type receivedRequest struct {
	header http.Header
	body   []byte
	at     time.Time
}

func newReceiver(t *testing.T, answer func(n int) int) *receiver {
	r := &receiver{}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.requests = append(r.requests, receivedRequest{header: req.Header.Clone(), body: body, at: time.Now()})
		n := len(r.requests)
		r.mu.Unlock()
		w.WriteHeader(answer(n))
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *receiver) got() []receivedRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

func testWebhookSignatures(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	f.now = time.Now().UTC().Truncate(time.Microsecond) // the library checks the timestamp against its clock
	rcv := newReceiver(t, func(int) int { return http.StatusNoContent })
	e := f.endpoint(t, rcv.URL+"/hook", "batch.submitted")
	old, err := standardwebhooks.NewWebhook(e.Secret)
	if err != nil {
		t.Fatal(err)
	}
	batch := f.batchOf(t, 2)
	if _, err := f.svc.Submit(f.ctx, f.org, batch); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 1)
	reqs := rcv.got()
	if len(reqs) != 1 {
		t.Fatalf("receiver got %d requests, want 1", len(reqs))
	}
	if err := old.Verify(reqs[0].body, reqs[0].header); err != nil {
		t.Errorf("signature does not verify: %v", err)
	}
	body := string(reqs[0].body)
	for _, want := range []string{`"type":"batch.submitted"`, `"timestamp":"`, `"data":{"id":"` + batch + `"`, `"statusCode":"OPEN"`, `"paymentsCount":2`} {
		if !strings.Contains(body, want) {
			t.Errorf("body %s lacks %s", body, want)
		}
	}
	ds := f.deliveries(t, e)
	if reqs[0].header.Get("webhook-id") != ds[0].ID || ds[0].Status != webhooks.DeliveryDelivered || ds[0].Attempts != 1 || ds[0].LastStatusCode != 204 {
		t.Errorf("delivery %+v, header id %q", ds[0], reqs[0].header.Get("webhook-id"))
	}
	// A tampered body fails: the check above can fail.
	if err := old.Verify(append(reqs[0].body, ' '), reqs[0].header); err == nil {
		t.Error("a tampered body verified")
	}

	// After a rotation both secrets verify, for a day; then only the new one.
	rot, err := f.hooks.RotateSecret(f.ctx, f.org, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := standardwebhooks.NewWebhook(rot.Secret)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 1)
	r2 := rcv.got()[1]
	if err := old.Verify(r2.body, r2.header); err != nil {
		t.Errorf("the old secret must verify within a day of the rotation: %v", err)
	}
	if err := cur.Verify(r2.body, r2.header); err != nil {
		t.Errorf("the new secret must verify: %v", err)
	}
	// A day later: sign at that time, and check without the library's
	// clock (the fixture's is a day ahead of it).
	f.advance(webhooks.SecretOverlap + time.Second)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 1)
	r3 := rcv.got()[2]
	if err := cur.VerifyIgnoringTimestamp(r3.body, r3.header); err != nil {
		t.Errorf("the new secret must verify after the overlap: %v", err)
	}
	if err := old.VerifyIgnoringTimestamp(r3.body, r3.header); err == nil {
		t.Error("the old secret still verifies after the overlap")
	}
}

func testWebhookRetries(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	rcv := newReceiver(t, func(n int) int { return map[bool]int{true: 500, false: 200}[n <= 2] })
	e := f.endpoint(t, rcv.URL, "batch.submitted")
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 1) // 500
	d := f.deliveries(t, e)[0]
	if d.Status != webhooks.DeliveryPending || d.Attempts != 1 || d.LastStatusCode != 500 || d.LastError == "" {
		t.Errorf("after a 500: %+v", d)
	}
	wait := d.NextAttemptAt.Sub(f.now)
	if wait < 800*time.Millisecond || wait > 1200*time.Millisecond {
		t.Errorf("first backoff %v, want a second give or take a fifth", wait)
	}
	f.sendWebhooks(t, "a", 0) // not due yet
	f.advance(1300 * time.Millisecond)
	f.sendWebhooks(t, "a", 1) // 500 again
	d = f.deliveries(t, e)[0]
	if wait := d.NextAttemptAt.Sub(f.now); wait < 1600*time.Millisecond || wait > 2400*time.Millisecond {
		t.Errorf("second backoff %v, want about two seconds", wait)
	}
	f.advance(2500 * time.Millisecond)
	f.sendWebhooks(t, "a", 1) // 200
	d = f.deliveries(t, e)[0]
	if d.Status != webhooks.DeliveryDelivered || d.Attempts != 3 || d.LastStatusCode != 200 || d.LastError != "" {
		t.Errorf("after the 200: %+v", d)
	}
	reqs := rcv.got()
	for i := 1; i < len(reqs); i++ {
		if reqs[i].header.Get("webhook-id") != reqs[0].header.Get("webhook-id") {
			t.Error("a retry must carry the same webhook-id")
		}
	}

	// An endpoint that always fails: FAILED once the retry window closes.
	if err := f.hooks.Delete(f.ctx, f.org, e.ID); err != nil {
		t.Fatal(err)
	}
	down := newReceiver(t, func(int) int { return http.StatusServiceUnavailable })
	e2 := f.endpoint(t, down.URL, "batch.submitted")
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	attempts := 0
	for range 100 {
		d := f.deliveries(t, e2)[0]
		if d.Status != webhooks.DeliveryPending {
			break
		}
		f.now = d.NextAttemptAt
		f.sendWebhooks(t, "a", 1)
		attempts++
	}
	d = f.deliveries(t, e2)[0]
	if d.Status != webhooks.DeliveryFailed || d.Attempts != attempts || d.LastStatusCode != 503 {
		t.Errorf("delivery %+v after %d attempts, want FAILED", d, attempts)
	}
	if f.now.Sub(d.EventAt) > webhookPolicy.RetryFor || attempts < 10 {
		t.Errorf("%d attempts over %v, want retries for up to %v", attempts, f.now.Sub(d.EventAt), webhookPolicy.RetryFor)
	}
	f.sendWebhooks(t, "a", 0)

	// The organisation asks for it again, once the window has closed (the
	// last attempt was inside it, and a retry from there may be jittered
	// back inside): one more attempt, then FAILED again.
	f.now = d.EventAt.Add(webhookPolicy.RetryFor + time.Minute)
	if _, err := f.hooks.RetryDelivery(f.ctx, f.org, e2.ID, d.ID); err != nil {
		t.Fatal(err)
	}
	f.sendWebhooks(t, "a", 1)
	if d := f.deliveries(t, e2)[0]; d.Status != webhooks.DeliveryFailed || d.Attempts != attempts+1 {
		t.Errorf("after a manual retry: %+v", d)
	}
	if _, err := f.hooks.RetryDelivery(f.ctx, f.org, e.ID, d.ID); disburse.ErrorCode(err) != disburse.CodeNotFound {
		t.Errorf("retry of a delivery under another endpoint: %v, want not_found", err)
	}
}

func testWebhookTimeout(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	rcv := newReceiver(t, func(int) int { time.Sleep(300 * time.Millisecond); return 200 })
	e := f.endpoint(t, rcv.URL, "batch.submitted")
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
	p := webhookPolicy
	p.SendTimeout = 50 * time.Millisecond
	if _, err := f.hooks.Deliver(f.ctx, notify.NewWebhook(true), httpapi.WebhookRenderer{}, "a", p); err != nil {
		t.Fatal(err)
	}
	d := f.deliveries(t, e)[0]
	if d.Status != webhooks.DeliveryPending || d.Attempts != 1 || d.LastError == "" || d.NextAttemptAt.IsZero() {
		t.Errorf("after a timeout: %+v, want a failed attempt and another due", d)
	}
}

func testWebhookDisable(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	meter := &hookMeter{}
	f.hooks.Meter = meter
	down := newReceiver(t, func(int) int { return http.StatusInternalServerError })
	e := f.endpoint(t, down.URL, "batch.submitted")
	// Failing for longer than DisableAfter, across new events.
	for range 5 {
		if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
		f.sendWebhooks(t, "a", -1)
		f.advance(time.Hour)
	}
	got, err := f.hooks.Endpoint(f.ctx, f.org, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Enabled || !strings.Contains(got.DisabledReason, "failed since") {
		t.Fatalf("endpoint %+v, want disabled after failing for %v", got, webhookPolicy.DisableAfter)
	}
	disabled := auditOf(t, s, "webhook.disabled")
	if len(disabled) != 1 || disabled[0].Subject != e.ID || disabled[0].Actor.Type != disburse.ActorSystem ||
		!strings.Contains(disabled[0].Details, "failed since") {
		t.Errorf("audit of the service's disabling: %+v", disabled)
	}
	meter.mu.Lock()
	if meter.disabled != 1 {
		t.Errorf("%d endpoints counted disabled, want 1", meter.disabled)
	}
	meter.mu.Unlock()
	// Its pending deliveries wait; enabling it sends them again.
	f.advance(time.Hour)
	f.sendWebhooks(t, "a", 0)
	on := true
	if _, err := f.hooks.Update(f.ctx, f.org, e.ID, webhooks.Input{URL: got.URL, Events: []string{"batch.submitted"}, Enabled: &on}); err != nil {
		t.Fatal(err)
	}
	n, err := f.hooks.Deliver(f.ctx, notify.NewWebhook(true), httpapi.WebhookRenderer{}, "a", webhookPolicy)
	if err != nil || n == 0 {
		t.Errorf("after enabling: %d attempted, %v", n, err)
	}
}

// testWebhookTwoWorkers: two workers (replicas) drain one outbox of
// deliveries, each with up to concurrency attempts in flight; each delivery
// is sent once and recorded, and the endpoint's failing time stays clear.
func testWebhookTwoWorkers(t *testing.T, s WebhookStore, batches, concurrency int) {
	f := webhookFixture(t, s)
	var inFlight sync.Map // webhook-id → *atomic.Int32
	var overlap, total atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := inFlight.LoadOrStore(r.Header.Get("webhook-id"), new(atomic.Int32))
		if c.(*atomic.Int32).Add(1) > 1 {
			overlap.Add(1)
		}
		total.Add(1)
		time.Sleep(20 * time.Millisecond)
		c.(*atomic.Int32).Add(-1)
	}))
	defer rcv.Close()
	e := f.endpoint(t, rcv.URL, "batch.submitted")
	for range batches {
		if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	p := webhookPolicy
	p.BatchSize, p.Concurrency = 3*max(concurrency, 1), concurrency
	errs := f.race(2, func(i int) error {
		for {
			n, err := f.hooks.Deliver(f.ctx, notify.NewWebhook(true), httpapi.WebhookRenderer{}, []string{"a", "b"}[i], p)
			if err != nil || n == 0 {
				return err
			}
		}
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if overlap.Load() != 0 {
		t.Errorf("%d deliveries were sent twice at once", overlap.Load())
	}
	if total.Load() != int32(batches) {
		t.Errorf("%d requests for %d deliveries, want each once", total.Load(), batches)
	}
	for _, d := range f.deliveries(t, e) {
		if d.Status != webhooks.DeliveryDelivered || d.Attempts != 1 || d.LeaseOwner != "" {
			t.Errorf("delivery %+v, want DELIVERED at its one attempt, unleased", d)
		}
	}
	if got, err := f.hooks.Endpoint(f.ctx, f.org, e.ID); err != nil || !got.FailingSince.IsZero() || !got.Enabled {
		t.Errorf("endpoint %+v, %v: want enabled and not failing", got, err)
	}
}

// testWebhookReferralEvents: a payment's two legs have events of their
// own: the referral leg settles when its payee registers, the payment leg
// is reversed at the end of the reversal period.
func testWebhookReferralEvents(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	on := true
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, f.org, organisations.Settings{ReferralsEnabled: &on}); err != nil {
		t.Fatal(err)
	}
	e := f.endpoint(t, "https://a.example.com/", "payment.settled", "payment.reversed", "payment.referral.settled", "payment.referral.reversed")
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "referrals"})
	if err != nil {
		t.Fatal(err)
	}
	const referrer = "447911123459"
	clear := false
	in := []disburse.PaymentInput{{Msisdn: racePayee, Amount: "10", ReferralAmount: "2", ReferralMsisdn: referrer}}
	_, added, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, b.ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: referrer}); err != nil {
		t.Fatal(err)
	}
	same(t, "after the referrer registers", []string{"payment.referral.settled " + added[0].ID}, eventsOf(f.deliveries(t, e)))
	f.advance(2 * time.Hour)
	if _, err := f.svc.ReverseDue(f.ctx); err != nil {
		t.Fatal(err)
	}
	same(t, "after the reversal", []string{"payment.referral.settled " + added[0].ID, "payment.reversed " + added[0].ID}, eventsOf(f.deliveries(t, e)))
}

// testWebhookLoop: the worker's loop claims again until nothing is due, so
// one run sends more than one claim holds.
func testWebhookLoop(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	rcv := newReceiver(t, func(int) int { return http.StatusOK })
	e := f.endpoint(t, rcv.URL, "batch.submitted")
	for range 5 {
		if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	p := webhookPolicy
	p.BatchSize = 2
	loop := worker.Webhooks(f.hooks, notify.NewWebhook(true), httpapi.WebhookRenderer{}, "loop", p, time.Hour, f.svc.Log)
	if n, err := loop.RunOnce(f.ctx); err != nil || n != 5 {
		t.Fatalf("RunOnce = %d, %v; want 5", n, err)
	}
	for _, d := range f.deliveries(t, e) {
		if d.Status != webhooks.DeliveryDelivered {
			t.Errorf("delivery %+v not delivered", d)
		}
	}
	if len(rcv.got()) != 5 {
		t.Errorf("receiver got %d requests, want 5", len(rcv.got()))
	}
}

// same fails the test when got differs from want; nil and empty are equal.
func same(t *testing.T, what string, want, got any, opts ...cmp.Option) {
	t.Helper()
	if diff := cmp.Diff(want, got, append(opts, cmpopts.EquateEmpty())...); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", what, diff)
	}
}
