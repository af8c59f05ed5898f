package httpapi_test

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/operators"
)

type AuditActor struct {
	Type string  `json:"type"`
	ID   *string `json:"id"`
	Name string  `json:"name"`
}

type AuditEntry struct {
	ID             string          `json:"id"`
	At             string          `json:"at"`
	Actor          AuditActor      `json:"actor"`
	Action         string          `json:"action"`
	OrganisationID *string         `json:"organisationId"`
	Subject        string          `json:"subject"`
	Details        json.RawMessage `json:"details"`
}

type AuditPage struct {
	Entries    []AuditEntry `json:"entries"`
	NextCursor *string      `json:"nextCursor"`
}

// auditHarness serves a store with the operator API on adminToken and on
// an operator token named "ops", made as the command line makes it.
type auditHarness struct {
	*harness
	ops   *operators.Service
	token string // the operator token "ops"
}

func startAudit(t *testing.T, open opener) auditHarness {
	t.Helper()
	store := open(t)
	h := serveStore(t, store, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), OperatorStore: store})
	h.hooks.Config.AllowPrivate = true
	ops := operators.New(store, "").WithClock(h.clock.Now)
	_, token, err := ops.CreateToken(t.Context(), disburse.CommandLine, "ops")
	if err != nil {
		t.Fatal(err)
	}
	return auditHarness{harness: h, ops: ops, token: token}
}

// newest is the newest entry of the whole log.
func (h auditHarness) newest() AuditEntry {
	h.t.Helper()
	p := ok[AuditPage](h.t, h.do("GET", "/admin/audit?take=1", h.token, nil), 200)
	if len(p.Entries) != 1 {
		h.t.Fatalf("no audit entry: %+v", p)
	}
	return p.Entries[0]
}

func ptr(s string) *string { return &s }

// TestE2EAuditActions performs each action the audit log records through
// the API, as the actor the docs say, and checks the entry it left
// (docs/api.md section 7, "Audit log").
func TestE2EAuditActions(t *testing.T) { eachStore(t, testE2EAuditActions) }

func testE2EAuditActions(t *testing.T, store opener) {
	h := startAudit(t, store)
	created := h.newest()
	if created.Action != "operatorToken.created" || created.Actor.Type != "commandLine" || created.OrganisationID != nil {
		t.Errorf("the token's creation: %+v", created)
	}
	ops := AuditActor{Type: "operatorToken", ID: ptr(created.Subject), Name: "ops"}
	bootstrap := AuditActor{Type: "operatorToken", Name: "bootstrap"}

	o := ok[Organisation](t, h.do("POST", "/admin/organisations", h.token, `{"name":"Audited"}`), 201)
	account := o.Accounts[0].ID
	var keyID, keyPrefix, token, batchID, paymentID, hookID, key2 string
	apiKey := func() AuditActor { return AuditActor{Type: "apiKey", ID: ptr(keyID), Name: keyPrefix} }
	var sandboxID, sandboxKey, sandboxPrefix, sandboxToken string
	sandboxActor := func() AuditActor { return AuditActor{Type: "apiKey", ID: ptr(sandboxKey), Name: sandboxPrefix} }
	orgID := ptr(o.ID)
	// Each step does one thing and says the entry it must leave: its
	// subject (from the step), and the details it must hold (a subset).
	steps := []struct {
		action  string
		do      func() (subject string)
		actor   func() AuditActor
		org     *string
		details string
	}{
		{"settings.changed", func() string {
			ok[Organisation](t, h.do("PUT", "/admin/organisations/"+o.ID+"/settings", h.token, `{"referralsEnabled":true}`), 200)
			return o.ID
		}, func() AuditActor { return ops }, orgID, `{"before":{"referralsEnabled":false},"after":{"referralsEnabled":true}}`},
		{"account.created", func() string {
			return ok[Account](t, h.do("POST", "/admin/organisations/"+o.ID+"/accounts", h.token, `{"name":"Second"}`), 201).ID
		}, func() AuditActor { return ops }, orgID, `{"name":"Second"}`},
		{"account.deposited", func() string {
			ok[Transfer](t, h.do("POST", "/admin/accounts/"+account+"/deposits", h.token, `{"amount":100,"reference":"float"}`), 201)
			return account
		}, func() AuditActor { return ops }, orgID, `{"amount":"100.00","reference":"float"}`},
		{"apiKey.issued", func() string {
			k := ok[struct {
				ID     string `json:"id"`
				APIKey string `json:"apiKey"`
			}](t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", h.token, nil), 201)
			keyID, keyPrefix, token = k.ID, k.APIKey[:10], h.harness.token(k.APIKey)
			return k.ID
		}, func() AuditActor { return ops }, orgID, `{"role":"admin"}`},
		{"member.registered", func() string {
			h.do("POST", "/admin/members", adminToken, `{"msisdn":"254712345001","firstname":"Ann"}`)
			return "254712345001"
		}, func() AuditActor { return bootstrap }, nil, `{"firstname":"Ann"}`},
		{"batch.created", func() string {
			batchID = ok[Batch](t, h.do("POST", "/batches", token, `{"name":"May"}`), 201).ID
			return batchID
		}, apiKey, orgID, `{"name":"May","status":"DRAFT"}`},
		{"batch.updated", func() string {
			ok[Batch](t, h.do("PUT", "/batches/"+batchID, token, `{"name":"June"}`), 200)
			return batchID
		}, apiKey, orgID, `{"before":{"name":"May"},"after":{"name":"June"}}`},
		{"payments.added", func() string {
			r := h.do("POST", "/batches/"+batchID+"/payments", token,
				`{"clearExisting":false,"payments":[`+pay("254712345001", "10")+`,`+pay("254712345002", "2.5")+`,`+pay("254712345003", "1")+`]}`)
			paymentID = ok[Batch](t, r, 200).Payments[2].ID
			return batchID
		}, apiKey, orgID, `{"count":3,"total":"13.50","clearExisting":false}`},
		{"payment.deleted", func() string {
			ok[Payment](t, h.do("DELETE", "/payments/"+paymentID, token, nil), 200)
			return paymentID
		}, apiKey, orgID, `{"amount":"1.00"}`},
		{"batch.submitted", func() string {
			ok[Batch](t, h.do("POST", "/batches/"+batchID+"/submit", token, nil), 200)
			return batchID
		}, apiKey, orgID, `{"paymentsCount":2,"paymentsAmount":"12.50"}`},
		{"batch.cancelled", func() string {
			ok[Batch](t, h.do("POST", "/batches/"+batchID+"/cancel", token, nil), 200)
			return batchID
		}, apiKey, orgID, `{"cancelledAmount":"2.50"}`},
		{"webhook.created", func() string {
			hookID = ok[map[string]any](t, h.do("POST", "/webhooks", token, `{"url":"http://127.0.0.1:9/hook"}`), 201)["id"].(string)
			return hookID
		}, apiKey, orgID, `{"url":"http://127.0.0.1:9/hook","enabled":true}`},
		{"webhook.changed", func() string {
			ok[map[string]any](t, h.do("PUT", "/webhooks/"+hookID, token, `{"url":"http://127.0.0.1:9/other"}`), 200)
			return hookID
		}, apiKey, orgID, `{"before":{"url":"http://127.0.0.1:9/hook"},"after":{"url":"http://127.0.0.1:9/other"}}`},
		{"webhook.secretRotated", func() string {
			ok[map[string]any](t, h.do("POST", "/webhooks/"+hookID+"/rotateSecret", token, nil), 200)
			return hookID
		}, apiKey, orgID, ``},
		{"webhook.disabled", func() string {
			ok[map[string]any](t, h.do("POST", "/admin/webhooks/"+hookID+"/disable", h.token, `{"reason":"too loud"}`), 200)
			return hookID
		}, func() AuditActor { return ops }, orgID, `{"after":{"enabled":false,"disabledReason":"too loud"}}`},
		{"webhook.deleted", func() string {
			if r := h.do("DELETE", "/webhooks/"+hookID, token, nil); r.status != 204 {
				t.Fatalf("delete webhook: %d %s", r.status, r.body)
			}
			return hookID
		}, apiKey, orgID, `{"url":"http://127.0.0.1:9/other"}`},
		{"apiKey.revoked", func() string {
			k := ok[map[string]any](t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
			key2 = k["id"].(string)
			if r := h.do("DELETE", "/admin/apiKeys/"+key2, adminToken, nil); r.status != 204 {
				t.Fatalf("revoke: %d %s", r.status, r.body)
			}
			return key2
		}, func() AuditActor { return bootstrap }, orgID, ``},
		{"sandbox.member.registered", func() string {
			sb := ok[Organisation](t, h.do("POST", "/admin/organisations", h.token, `{"name":"Sandboxed","sandbox":true}`), 201)
			sandboxID = sb.ID
			k := ok[struct {
				ID     string `json:"id"`
				APIKey string `json:"apiKey"`
			}](t, h.do("POST", "/admin/organisations/"+sb.ID+"/apiKeys", h.token, nil), 201)
			sandboxKey, sandboxPrefix, sandboxToken = k.ID, k.APIKey[:len("dak_test_")+6], h.harness.token(k.APIKey)
			ok[map[string]any](t, h.do("POST", "/sandbox/members", sandboxToken, `{"msisdn":"254712345009"}`), 201)
			return "254712345009"
		}, sandboxActor, &sandboxID, `{"pendingLegsSettled":0}`},
		{"sandbox.batch.expired", func() string {
			ok[Transfer](t, h.do("POST", "/sandbox/deposits", sandboxToken, `{"amount":10,"currency":"KES"}`), 201)
			b := ok[Batch](t, h.do("POST", "/batches", sandboxToken, `{"name":"Test"}`), 201)
			ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/payments", sandboxToken, `{"clearExisting":false,"payments":[`+pay("254712345008", "3")+`]}`), 200)
			ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", sandboxToken, nil), 200)
			ok[Batch](t, h.do("POST", "/sandbox/batches/"+b.ID+"/expire", sandboxToken, nil), 200)
			return b.ID
		}, sandboxActor, &sandboxID, `{"paymentsChanged":1}`},
	}
	seen := map[string]bool{"operatorToken.created": true, "organisation.created": true}
	if e := h.newest(); e.Action != "organisation.created" || !cmp.Equal(e.Actor, ops) || e.Subject != o.ID {
		t.Errorf("organisation.created: %+v", e)
	}
	for _, st := range steps {
		subject := st.do()
		e := h.newest()
		seen[st.action] = true
		if e.Action != st.action || e.Subject != subject || !cmp.Equal(e.Actor, st.actor()) || !cmp.Equal(e.OrganisationID, st.org) {
			t.Errorf("%s: entry %+v, actor %+v; want subject %s, actor %+v, organisation %v", st.action, e, e.Actor, subject, st.actor(), st.org)
			continue
		}
		if st.details != "" && !containsJSON(t, e.Details, st.details) {
			t.Errorf("%s: details %s, want them to hold %s", st.action, e.Details, st.details)
		}
	}
	// The operator token's revocation, by the command line.
	if err := h.ops.RevokeToken(t.Context(), disburse.CommandLine, "ops"); err != nil {
		t.Fatal(err)
	}
	seen["operatorToken.revoked"] = true
	problem(t, h.do("GET", "/admin/audit", h.token, nil), 401, "unauthorized")
	page := ok[AuditPage](t, h.do("GET", "/admin/audit?take=1", adminToken, nil), 200)
	if e := page.Entries[0]; e.Action != "operatorToken.revoked" || e.Actor.Type != "commandLine" || e.Subject != created.Subject {
		t.Errorf("the token's revocation: %+v", e)
	}
	for _, a := range operators.Actions {
		if !seen[a] && !strings.HasPrefix(a, "portal.") && !strings.HasPrefix(a, "portalUser.") { // the portal's tests cover those
			t.Errorf("action %s: no step performs it", a)
		}
	}
}

// containsJSON reports whether got holds every member of want, recursively.
func containsJSON(t *testing.T, got json.RawMessage, want string) bool {
	t.Helper()
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("details %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("want %s: %v", want, err)
	}
	return holds(g, w)
}

func holds(got, want any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return cmp.Equal(got, want)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !holds(gm[k], v) {
			return false
		}
	}
	return true
}

// TestE2EAuditScopeAndPaging: an organisation reads its own entries alone;
// pages follow nextCursor to the end; bad cursors and takes are 400s.
func TestE2EAuditScopeAndPaging(t *testing.T) { eachStore(t, testE2EAuditScopeAndPaging) }

func testE2EAuditScopeAndPaging(t *testing.T, store opener) {
	h := startAudit(t, store)
	a, b := h.createOrg("A", false, "100"), h.createOrg("B", false, "100")
	for i := range 4 {
		h.createBatch(a, "a"+strconv.Itoa(i))
	}
	h.createBatch(b, "b")

	own := func(o org, query string) AuditPage {
		return ok[AuditPage](t, h.do("GET", "/audit"+query, o.token, nil), 200)
	}
	// A's: created, key issued, deposited, 4 batches = 7, newest first.
	var all []AuditEntry
	cursor := ""
	for range 10 {
		p := own(a, "?take=3&after="+url.QueryEscape(cursor))
		if cursor == "" {
			p = own(a, "?take=3")
		}
		all = append(all, p.Entries...)
		if p.NextCursor == nil {
			break
		}
		cursor = *p.NextCursor
	}
	var actions []string
	for i, e := range all {
		if e.OrganisationID == nil || *e.OrganisationID != a.ID {
			t.Errorf("entry %d of A's: %+v", i, e)
		}
		if i > 0 && all[i-1].At < e.At {
			t.Errorf("entry %d is newer than the one before it", i)
		}
		actions = append(actions, e.Action)
	}
	want := []string{"batch.created", "batch.created", "batch.created", "batch.created", "account.deposited", "apiKey.issued", "organisation.created"}
	if diff := cmp.Diff(want, actions); diff != "" {
		t.Errorf("A's entries by pages of 3 (-want +got):\n%s", diff)
	}
	if p := own(a, ""); len(p.Entries) != 7 || p.NextCursor != nil {
		t.Errorf("one page of every entry: %d entries, nextCursor %v", len(p.Entries), p.NextCursor)
	}
	// The operator narrows by organisation and action.
	bs := ok[AuditPage](t, h.do("GET", "/admin/audit?organisationId="+b.ID+"&action=batch.created", adminToken, nil), 200)
	if len(bs.Entries) != 1 || *bs.Entries[0].OrganisationID != b.ID {
		t.Errorf("B's batch.created: %+v", bs)
	}
	for query, f := range map[string]failure{
		"?take=0":        {FieldName: "Take", FieldValue: "0"},
		"?take=1001":     {FieldName: "Take", FieldValue: "1001"},
		"?take=x":        {FieldName: "Take", FieldValue: "x"},
		"?after=nope":    {FieldName: "After", FieldValue: "nope"},
		"?after=" + a.ID: {FieldName: "After", FieldValue: a.ID}, // an id, but no entry's
	} {
		wantFailures(t, h.do("GET", "/audit"+query, a.token, nil), f)
	}
	// Another organisation's entry is no cursor of A's list.
	wantFailures(t, h.do("GET", "/audit?after="+bs.Entries[0].ID, a.token, nil), failure{FieldName: "After", FieldValue: bs.Entries[0].ID})
	wantFailures(t, h.do("GET", "/admin/audit?organisationId=nope", adminToken, nil), failure{FieldName: "OrganisationId", FieldValue: "nope"})
	problem(t, h.do("GET", "/audit", adminToken, nil), 401, "unauthorized")
	problem(t, h.do("GET", "/admin/audit", a.token, nil), 401, "unauthorized")
}
