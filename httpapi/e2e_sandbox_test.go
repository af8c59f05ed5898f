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
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// sandboxMemberWire is POST /sandbox/members' answer; ok refuses any other field.
type sandboxMemberWire struct {
	Msisdn          string `json:"msisdn"`
	RegisteredAt    string `json:"registeredAt"`
	SettledPayments int    `json:"settledPayments"`
}

type transferWire struct {
	ID        string      `json:"id"`
	AccountID string      `json:"accountId"`
	Amount    json.Number `json:"amount"`
	Reference string      `json:"reference"`
	CreatedAt string      `json:"createdAt"`
}

// createSandbox is createOrg for a sandbox organisation, with no float.
func (h *harness) createSandbox(name string) org {
	h.t.Helper()
	o := ok[Organisation](h.t, h.do("POST", "/admin/organisations", adminToken, map[string]any{"name": name, "sandbox": true}), 201)
	key := ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](h.t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	return org{Organisation: o, key: key.APIKey, token: h.token(key.APIKey)}
}

// TestE2ESandbox: docs/sandbox.md's walk-through over HTTP, beside a live
// organisation paying the same payee: the keys' prefix, the three routes
// and their 404 to a live organisation, the webhooks they fire, their
// audit entries; the harness audits the ledger at the end.
func TestE2ESandbox(t *testing.T) { eachStore(t, testE2ESandbox) }

func testE2ESandbox(t *testing.T, store opener) {
	h := startWebhooksOn(t, store)
	live := h.createOrg("Live", false, "1000.00")
	sb := h.createSandbox("Sandbox")
	if !sb.Sandbox || live.Sandbox {
		t.Errorf("sandbox flags: sandbox %v, live %v", sb.Sandbox, live.Sandbox)
	}
	if !strings.HasPrefix(sb.key, "dak_test_") || !strings.HasPrefix(live.key, "dak_") || strings.HasPrefix(live.key, "dak_test_") {
		t.Errorf("keys %.12s… (sandbox), %.12s… (live)", sb.key, live.key)
	}
	if got := ok[Organisation](t, h.do("GET", "/admin/organisations/"+sb.ID, adminToken, nil), 200); !got.Sandbox {
		t.Errorf("GET /admin/organisations/{id} of the sandbox: %+v", got)
	}

	listed := ok[struct {
		Organisations []map[string]any `json:"organisations"`
		NextCursor    *string          `json:"nextCursor"`
	}](t, h.do("GET", "/admin/organisations", adminToken, nil), 200)
	for _, o := range listed.Organisations {
		if sandbox, shown := o["sandbox"]; (o["id"] == sb.ID) != shown || (shown && sandbox != true) {
			t.Errorf("GET /admin/organisations lists %v", o)
		}
	}

	// A live organisation has none of the routes.
	liveBatch := h.createBatch(live, "live")
	for _, rt := range []struct{ path, body string }{
		{"/sandbox/members", `{"msisdn":"` + nonMember + `"}`},
		{"/sandbox/batches/" + liveBatch.ID + "/expire", ""},
		{"/sandbox/deposits", `{"amount":10,"currency":"KES"}`},
	} {
		var body any
		if rt.body != "" {
			body = rt.body
		}
		problem(t, h.do("POST", rt.path, live.token, body), 404, "not_found")
	}

	// Its float, topped up by its own call.
	wantFailures(t, h.do("POST", "/sandbox/deposits", sb.token, `{"amount":0,"currency":"USD"}`),
		failure{FieldName: "Amount", FieldValue: "0"}, failure{FieldName: "Currency", FieldValue: "USD"})
	problem(t, h.do("POST", "/sandbox/deposits", sb.token, `{"amount":10,"currency":"KES","accountId":"`+live.Accounts[0].ID+`"}`), 404, "not_found")
	dep := ok[transferWire](t, h.do("POST", "/sandbox/deposits", sb.token, `{"amount":100.50,"currency":"KES","reference":"test float"}`), 201)
	if dep.AccountID != sb.Accounts[0].ID || dep.Amount != "100.50" || dep.Reference != "test float" {
		t.Errorf("deposit %+v", dep)
	}
	if a := h.account(sb); a.Balance != "100.50" {
		t.Errorf("sandbox float %s, want 100.50", a.Balance)
	}

	var mu sync.Mutex
	var events []string
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var e struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(body, &e)
		mu.Lock()
		events = append(events, e.Type)
		mu.Unlock()
	}))
	defer rcv.Close()
	ok[webhookWire](t, h.do("POST", "/webhooks", sb.token, map[string]any{"url": rcv.URL + "/hook"}), 201)

	// A live member is none of the sandbox's: both payments are held.
	ok[map[string]any](t, h.register(member, false), 201)
	held := h.createBatch(sb, "held")
	ok[Batch](t, h.addPayments(sb, held.ID, false, pay(member, "10"), pay(nonMember, "20")), 200)
	submitted := ok[Batch](t, h.do("POST", "/batches/"+held.ID+"/submit", sb.token, nil), 200)
	for _, p := range submitted.Payments {
		if p.StatusCode != "PENDING" || *p.IsMember {
			t.Errorf("sandbox's payment to %s: %s, member %v; want PENDING to a non-member", p.Msisdn, p.StatusCode, *p.IsMember)
		}
	}
	ok[Batch](t, h.addPayments(live, liveBatch.ID, false, pay(nonMember, "5")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+liveBatch.ID+"/submit", live.token, nil), 200)

	// A sandbox tells no payee: the one SMS to the payee is the live batch's.
	if sms := ok[[]map[string]any](t, h.do("GET", "/admin/notifications?recipient="+nonMember, adminToken, nil), 200); len(sms) != 1 {
		t.Errorf("notifications to the payee: %v, want the live batch's one", sms)
	}

	// Registering the payee in the sandbox settles the sandbox's payment
	// only; the payee is no member of the service.
	reg := ok[sandboxMemberWire](t, h.do("POST", "/sandbox/members", sb.token, `{"msisdn":"`+nonMember+`"}`), 201)
	if reg.Msisdn != nonMember || reg.SettledPayments != 1 || reg.RegisteredAt == "" {
		t.Errorf("registration %+v", reg)
	}
	if again := ok[sandboxMemberWire](t, h.do("POST", "/sandbox/members", sb.token, `{"msisdn":"`+nonMember+`"}`), 200); again.SettledPayments != 0 || again.RegisteredAt != reg.RegisteredAt {
		t.Errorf("second registration %+v", again)
	}
	wantFailures(t, h.do("POST", "/sandbox/members", sb.token, `{"msisdn":"12"}`), failure{FieldName: "Msisdn", FieldValue: "12"})
	if got := paymentStatus(t, h, sb, held.ID, nonMember); got != "SETTLED" {
		t.Errorf("sandbox's payment to its new member: %s", got)
	}
	if got := paymentStatus(t, h, live, liveBatch.ID, nonMember); got != "PENDING" {
		t.Errorf("live payment to the sandbox's member: %s", got)
	}
	exists := ok[struct {
		Msisdn string `json:"msisdn"`
		Exists bool   `json:"exists"`
	}](t, h.do("GET", "/members/"+nonMember+"/exists", live.token, nil), 200)
	if exists.Exists {
		t.Error("the sandbox's member is a member of the service")
	}
	mine := ok[struct {
		Msisdn string `json:"msisdn"`
		Exists bool   `json:"exists"`
	}](t, h.do("GET", "/members/"+nonMember+"/exists", sb.token, nil), 200)
	liveMember := ok[struct {
		Msisdn string `json:"msisdn"`
		Exists bool   `json:"exists"`
	}](t, h.do("GET", "/members/"+member+"/exists", sb.token, nil), 200)
	if !mine.Exists || liveMember.Exists {
		t.Errorf("to the sandbox: its member exists %v, a live member %v; want true, false", mine.Exists, liveMember.Exists)
	}

	// Expire reverses what is still held: the batch closes, the float is back.
	problem(t, h.do("POST", "/sandbox/batches/"+liveBatch.ID+"/expire", sb.token, nil), 404, "not_found")
	expired := ok[Batch](t, h.do("POST", "/sandbox/batches/"+held.ID+"/expire", sb.token, nil), 200)
	if expired.StatusCode != "CLOSED" || expired.Summary.CancelledCount != 1 || expired.Summary.SettledCount != 1 {
		t.Errorf("expired batch %+v %+v", expired, expired.Summary)
	}
	problem(t, h.do("POST", "/sandbox/batches/"+held.ID+"/expire", sb.token, nil), 409, "invalid_state")
	if a := h.account(sb); a.Balance != "80.50" || a.HeldBalance != "0.00" {
		t.Errorf("sandbox float after expire %s held %s; want 80.50, 0.00", a.Balance, a.HeldBalance)
	}

	// Webhooks fire from the sandbox as they do live.
	if _, err := h.hooks.Deliver(t.Context(), notify.NewWebhook(true), httpapi.WebhookRenderer{}, "e2e", webhooks.DefaultPolicy); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	slices.Sort(events)
	want := []string{"batch.closed", "batch.submitted", "payment.reversed", "payment.settled"}
	if !slices.Equal(events, want) {
		t.Errorf("events %v, want %v", events, want)
	}
	mu.Unlock()

	// Each call is in the organisation's audit log.
	page := ok[AuditPage](t, h.do("GET", "/audit", sb.token, nil), 200)
	var actions []string
	for _, e := range page.Entries {
		actions = append(actions, e.Action)
	}
	for _, a := range []string{"account.deposited", "sandbox.member.registered", "sandbox.batch.expired"} {
		if !slices.Contains(actions, a) {
			t.Errorf("no %s in the sandbox's audit log %v", a, actions)
		}
	}
}

// paymentStatus is the status of o's payment to msisdn in the batch.
func paymentStatus(t *testing.T, h *harness, o org, batchID, msisdn string) string {
	t.Helper()
	for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+batchID+"/payments", o.token, nil), 200) {
		if p.Msisdn == msisdn {
			return p.StatusCode
		}
	}
	t.Fatalf("no payment to %s", msisdn)
	return ""
}

// TestE2ESandboxIdempotentReplay: each sandbox call's answer is kept with
// its Idempotency-Key in the work's transaction, and replayed byte for
// byte with nothing done again.
func TestE2ESandboxIdempotentReplay(t *testing.T) { eachStore(t, testE2ESandboxIdempotentReplay) }

func testE2ESandboxIdempotentReplay(t *testing.T, store opener) {
	h := startIdem(t, store)
	sb := h.createSandbox("Sandbox")
	dep := h.sendKey("POST", "/sandbox/deposits", sb.token, "dep-1", `{"amount":100,"currency":"KES"}`)
	ok[transferWire](t, dep, 201)
	sameAnswer(t, dep, h.sendKey("POST", "/sandbox/deposits", sb.token, "dep-1", `{"amount":100,"currency":"KES"}`))
	if a := h.account(sb); a.Balance != "100.00" {
		t.Errorf("float %s after a replayed deposit, want 100.00", a.Balance)
	}

	b := h.createBatch(sb, "held")
	ok[Batch](t, h.addPayments(sb, b.ID, false, pay(member, "10"), pay(nonMember, "20")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", sb.token, nil), 200)
	for i, key := range []string{"reg-new", "reg-again"} { // 201 with a payment settled, then 200
		first := h.sendKey("POST", "/sandbox/members", sb.token, key, `{"msisdn":"`+member+`"}`)
		reg := ok[sandboxMemberWire](t, first, 201-i)
		if reg.SettledPayments != 1-i {
			t.Errorf("registration %s: %+v", key, reg)
		}
		sameAnswer(t, first, h.sendKey("POST", "/sandbox/members", sb.token, key, `{"msisdn":"`+member+`"}`))
	}
	expired := h.sendKey("POST", "/sandbox/batches/"+b.ID+"/expire", sb.token, "exp-1", ``)
	if got := ok[Batch](t, expired, 200); got.StatusCode != "CLOSED" {
		t.Errorf("expired batch %s", got.StatusCode)
	}
	sameAnswer(t, expired, h.sendKey("POST", "/sandbox/batches/"+b.ID+"/expire", sb.token, "exp-1", ``))
}

// TestE2ESandboxAnswersInDoubt: a sandbox call whose work commits and
// whose answer is lost (the COMMIT's reply, then the key's release)
// replays, on retry, the answer made in the work's transaction: what the
// call would have answered, and nothing is done twice.
func TestE2ESandboxAnswersInDoubt(t *testing.T) { eachStore(t, testE2ESandboxAnswersInDoubt) }

func testE2ESandboxAnswersInDoubt(t *testing.T, store opener) {
	h, faulty := startFaulty(t, store)
	sb := h.createSandbox("Sandbox")
	inDoubt := func(path, key, body string) response {
		t.Helper()
		base := faulty.writes.Load() // from here: the claim, the work, the release
		faulty.lost = func(n int64) bool { return n == base+2 }
		faulty.fail = func(n int64) bool { return n == base+3 }
		problem(t, h.sendKey("POST", path, sb.token, key, body), 500, "internal")
		faulty.lost, faulty.fail = nil, nil
		replay := h.sendKey("POST", path, sb.token, key, body)
		if replay.header.Get("Idempotent-Replayed") != "true" {
			t.Errorf("retry of %s: not a replay", path)
		}
		return replay
	}
	dep := ok[transferWire](t, inDoubt("/sandbox/deposits", "dep", `{"amount":100,"currency":"KES","reference":"float"}`), 201)
	if dep.Amount != "100.00" || dep.AccountID != sb.Accounts[0].ID || dep.Reference != "float" {
		t.Errorf("replayed deposit %+v", dep)
	}
	if a := h.account(sb); a.Balance != "100.00" {
		t.Errorf("float %s, want 100.00: the deposit moved money once", a.Balance)
	}

	b := h.createBatch(sb, "held")
	ok[Batch](t, h.addPayments(sb, b.ID, false, pay(member, "10"), pay(nonMember, "20")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", sb.token, nil), 200)
	reg := ok[sandboxMemberWire](t, inDoubt("/sandbox/members", "reg", `{"msisdn":"`+member+`"}`), 201)
	if reg.Msisdn != member || reg.SettledPayments != 1 || reg.RegisteredAt == "" {
		t.Errorf("replayed registration %+v", reg)
	}
	h.clock.Advance(time.Minute) // the second registration answers the first's date
	again := ok[sandboxMemberWire](t, inDoubt("/sandbox/members", "reg-again", `{"msisdn":"`+member+`"}`), 200)
	if again.SettledPayments != 0 || again.RegisteredAt != reg.RegisteredAt {
		t.Errorf("replayed second registration %+v", again)
	}
	expired := ok[Batch](t, inDoubt("/sandbox/batches/"+b.ID+"/expire", "exp", ``), 200)
	read := ok[Batch](t, h.do("GET", "/batches/"+b.ID, sb.token, nil), 200)
	if expired.StatusCode != "CLOSED" || !cmp.Equal(expired, read) {
		t.Errorf("replayed expire %+v, the batch reads %+v", expired, read)
	}
}

// TestE2ESandboxInNewVersion: the sandbox's calls in version 2026-12-01,
// checked against its document: date-times with Z, unknown members
// refused by name.
func TestE2ESandboxInNewVersion(t *testing.T) { eachStore(t, testE2ESandboxInNewVersion) }

func testE2ESandboxInNewVersion(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	sb := h.createSandbox("Sandbox")
	wantFailures(t, h.doIn(newVersion, "POST", "/sandbox/deposits", sb.token, `{"amount":5,"currency":"KES","ammount":5}`),
		failure{FieldName: "ammount", FieldValue: "5"})
	dep := ok[transferWire](t, h.doIn(newVersion, "POST", "/sandbox/deposits", sb.token, `{"amount":5,"currency":"KES"}`), 201)
	reg := h.doIn(newVersion, "POST", "/sandbox/members", sb.token, `{"msisdn":"`+member+`"}`)
	wantVersion(t, reg, newVersion)
	if m := ok[sandboxMemberWire](t, reg, 201); !strings.HasSuffix(m.RegisteredAt, "Z") || !strings.HasSuffix(dep.CreatedAt, "Z") {
		t.Errorf("date-times without Z: %s, %s", m.RegisteredAt, dep.CreatedAt)
	}
}
