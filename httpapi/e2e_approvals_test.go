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

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// Four-eyes approval of a submit over HTTP (docs/api.md section 4.3): the
// operator's threshold, the 202, the batch held, the decisions by another
// API key than the requester's, the float checked at approval, a cancel
// while pending, the list, idempotent retries, and approvals on two
// servers of one database.

// Actor and Approval are the wire forms; ok refuses any other field.
type Actor struct {
	Type string  `json:"type"`
	ID   *string `json:"id"`
	Name string  `json:"name"`
}

type Approval struct {
	ID              string      `json:"id"`
	BatchID         string      `json:"batchId"`
	Status          string      `json:"status"`
	RequestedBy     Actor       `json:"requestedBy"`
	RequestedAt     string      `json:"requestedAt"`
	PaymentsCount   int         `json:"paymentsCount"`
	PaymentsAmount  json.Number `json:"paymentsAmount"`
	ReferralsAmount json.Number `json:"referralsAmount"`
	DecidedBy       *Actor      `json:"decidedBy"`
	DecidedAt       string      `json:"decidedAt"`
	Comment         string      `json:"comment"`
}

type approvalAnswer struct {
	Approval Approval `json:"approval"`
	Batch    *Batch   `json:"batch"`
}

// approver is a second API key of o, and a token of it: another actor
// than o's own key.
func (h *harness) approver(o org) org {
	h.t.Helper()
	key := ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](h.t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	a := o
	a.key, a.token = key.APIKey, h.token(key.APIKey)
	return a
}

// setThreshold sets o's approval threshold through the operator API
// (a JSON number's text, or null) and returns the organisation.
func (h *harness) setThreshold(o org, threshold string) Organisation {
	h.t.Helper()
	return ok[Organisation](h.t, h.do("PUT", "/admin/organisations/"+o.ID+"/settings", adminToken, `{"approvalThreshold":`+threshold+`}`), 200)
}

// heldBatch is a DRAFT batch of o with payments, submitted by o's key
// into a PENDING approval.
func (h *harness) heldBatch(o org, payments ...string) (Batch, Approval) {
	h.t.Helper()
	b := h.createBatch(o, "payroll")
	ok[Batch](h.t, h.addPayments(o, b.ID, false, payments...), 200)
	r := h.do("POST", "/batches/"+b.ID+"/submit", o.token, nil)
	a := ok[approvalAnswer](h.t, r, 202)
	if a.Batch != nil || a.Approval.Status != "PENDING" || r.header.Get("Location") != "/approvals/"+a.Approval.ID {
		h.t.Fatalf("submit over the threshold: %s %s", r.header, r.body)
	}
	return b, a.Approval
}

func TestE2EApprovals(t *testing.T) { eachStore(t, testE2EApprovals) }

func testE2EApprovals(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	maker := h.createOrg("Acme", false, "1000.00")
	checker := h.approver(maker)
	ok[Member](t, h.register(member, false), 201)

	// The setting: absent while off, shown once set, null turns it off again.
	if maker.ApprovalThreshold != "" {
		t.Errorf("a new organisation's threshold: %s, want none", maker.ApprovalThreshold)
	}
	if got := h.setThreshold(maker, "150.50"); got.ApprovalThreshold != "150.50" {
		t.Errorf("threshold set to %q", got.ApprovalThreshold)
	}
	if got := ok[Organisation](t, h.do("GET", "/admin/organisations/"+maker.ID, adminToken, nil), 200); got.ApprovalThreshold != "150.50" {
		t.Errorf("GET shows threshold %q", got.ApprovalThreshold)
	}
	if got := h.setThreshold(maker, "null"); got.ApprovalThreshold != "" {
		t.Errorf("after null: threshold %q", got.ApprovalThreshold)
	}
	wantFailures(t, h.do("PUT", "/admin/organisations/"+maker.ID+"/settings", adminToken, `{"approvalThreshold":"100"}`),
		failure{FieldName: "ApprovalThreshold", FieldValue: "100"})
	for _, bad := range []string{"-1", "1.001", "1e3"} {
		wantFailures(t, h.do("PUT", "/admin/organisations/"+maker.ID+"/settings", adminToken, `{"approvalThreshold":`+bad+`}`),
			failure{FieldName: "ApprovalThreshold", FieldValue: bad})
	}
	h.setThreshold(maker, "150")

	// Below the threshold a submit pays as ever.
	small := h.createBatch(maker, "small")
	ok[Batch](t, h.addPayments(maker, small.ID, false, pay(member, "149.99")), 200)
	if got := ok[Batch](t, h.do("POST", "/batches/"+small.ID+"/submit", maker.token, nil), 200); got.StatusCode != "CLOSED" {
		t.Errorf("a submit below the threshold: %s", got.StatusCode)
	}

	// At it, the submit asks for an approval and pays nothing.
	b, a := h.heldBatch(maker, pay(member, "100.00"), pay(nonMember, "50.00"))
	wantApproval := Approval{ID: a.ID, BatchID: b.ID, Status: "PENDING", RequestedBy: Actor{Type: "apiKey", ID: a.RequestedBy.ID, Name: maker.key[:10]},
		RequestedAt: "2026-11-22T10:15:30.1234560", PaymentsCount: 2, PaymentsAmount: "150.00", ReferralsAmount: "0.00"}
	if diff := cmp.Diff(wantApproval, a); diff != "" || a.RequestedBy.ID == nil {
		t.Errorf("approval (-want +got):\n%s", diff)
	}
	if acc := h.account(maker); acc.Balance != "850.01" {
		t.Errorf("balance %s after the request, want 850.01: nothing more paid", acc.Balance)
	}
	held := ok[Batch](t, h.do("GET", "/batches/"+b.ID, maker.token, nil), 200)
	if held.StatusCode != "DRAFT" || held.ApprovalID != a.ID {
		t.Errorf("held batch %+v", held)
	}
	payments := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", maker.token, nil), 200)
	for _, refused := range []response{
		h.addPayments(maker, b.ID, false, pay(member, "1")),
		h.do("PUT", "/batches/"+b.ID, maker.token, map[string]string{"name": "renamed"}),
		h.do("DELETE", "/payments/"+payments[0].ID, maker.token, nil),
		h.do("POST", "/batches/"+b.ID+"/submit", checker.token, nil),
	} {
		problem(t, refused, 409, "invalid_state")
	}

	// The requester may not decide: neither with the token it used nor with
	// another token of the same key.
	problem(t, h.do("POST", "/approvals/"+a.ID+"/approve", maker.token, nil), 403, "forbidden")
	problem(t, h.do("POST", "/approvals/"+a.ID+"/reject", h.token(maker.key), `{"comment":"mine"}`), 403, "forbidden")
	wantFailures(t, h.do("POST", "/approvals/"+a.ID+"/approve", checker.token, map[string]string{"comment": strings.Repeat("x", 1001)}),
		failure{FieldName: "Comment", FieldValue: strings.Repeat("x", 256) + "…"})

	// Another key approves: the submit runs, in the approval's transaction.
	approved := ok[approvalAnswer](t, h.do("POST", "/approvals/"+a.ID+"/approve", checker.token, `{"comment":"matches the payroll"}`), 200)
	if approved.Approval.Status != "APPROVED" || approved.Approval.Comment != "matches the payroll" || approved.Approval.DecidedBy == nil ||
		approved.Approval.DecidedBy.Name != checker.key[:10] || approved.Batch == nil || approved.Batch.StatusCode != "OPEN" || approved.Batch.ApprovalID != "" {
		t.Errorf("approved %+v %+v", approved.Approval, approved.Batch)
	}
	if acc := h.account(maker); acc.Balance != "700.01" {
		t.Errorf("balance %s, want 700.01", acc.Balance)
	}
	problem(t, h.do("POST", "/approvals/"+a.ID+"/approve", checker.token, nil), 409, "invalid_state")
	if got := ok[Approval](t, h.do("GET", "/approvals/"+a.ID, maker.token, nil), 200); !cmp.Equal(got, approved.Approval) {
		t.Errorf("GET /approvals/{id} = %+v, want %+v", got, approved.Approval)
	}

	// A rejection frees the batch.
	b2, a2 := h.heldBatch(maker, pay(member, "500"))
	rejected := ok[approvalAnswer](t, h.do("POST", "/approvals/"+a2.ID+"/reject", checker.token, nil), 200)
	if rejected.Approval.Status != "REJECTED" || rejected.Batch.StatusCode != "DRAFT" || rejected.Batch.ApprovalID != "" {
		t.Errorf("rejected %+v %+v", rejected.Approval, rejected.Batch)
	}
	ok[Batch](t, h.addPayments(maker, b2.ID, false, pay(member, "300")), 200)

	// Approved with too little float: the submit's 422, the approval
	// rejected, the batch DRAFT and free, nothing paid.
	_, a3 := h.heldBatch(maker, pay(member, "800"))
	p := problem(t, h.do("POST", "/approvals/"+a3.ID+"/approve", checker.token, nil), 422, "insufficient_float")
	if p["required"] != json.Number("800.00") || p["available"] != json.Number("700.01") {
		t.Errorf("problem %v", p)
	}
	if got := ok[Approval](t, h.do("GET", "/approvals/"+a3.ID, maker.token, nil), 200); got.Status != "REJECTED" || !strings.Contains(got.Comment, "800.00") {
		t.Errorf("after the shortfall: %+v", got)
	}
	if got := ok[Batch](t, h.do("GET", "/batches/"+a3.BatchID, maker.token, nil), 200); got.StatusCode != "DRAFT" || got.ApprovalID != "" {
		t.Errorf("the batch after the shortfall: %+v", got)
	}

	// A cancel while pending is allowed and cancels the approval.
	b4, a4 := h.heldBatch(maker, pay(member, "200"))
	if got := ok[Batch](t, h.do("POST", "/batches/"+b4.ID+"/cancel", maker.token, nil), 200); got.StatusCode != "CANCELLED" {
		t.Errorf("cancel: %s", got.StatusCode)
	}
	if got := ok[Approval](t, h.do("GET", "/approvals/"+a4.ID, maker.token, nil), 200); got.Status != "CANCELLED" {
		t.Errorf("approval after the cancel: %s", got.Status)
	}

	// The list: newest first, by status, paged; another organisation sees none.
	ids := func(r response) []string {
		var out []string
		for _, a := range ok[[]Approval](t, r, 200) {
			out = append(out, a.ID)
		}
		return out
	}
	if got := ids(h.do("GET", "/approvals", maker.token, nil)); !slices.Equal(got, []string{a4.ID, a3.ID, a2.ID, a.ID}) {
		t.Errorf("GET /approvals = %v", got)
	}
	if got := ids(h.do("GET", "/approvals?status=REJECTED&skip=1&take=1", maker.token, nil)); !slices.Equal(got, []string{a2.ID}) {
		t.Errorf("GET /approvals?status=REJECTED&skip=1&take=1 = %v", got)
	}
	wantFailures(t, h.do("GET", "/approvals?status=WAITING&take=1001", maker.token, nil),
		failure{FieldName: "Take", FieldValue: "1001"}, failure{FieldName: "Status", FieldValue: "WAITING"})
	other := h.createOrg("Other", false, "")
	if got := ids(h.do("GET", "/approvals", other.token, nil)); len(got) != 0 {
		t.Errorf("another organisation lists %v", got)
	}
	for _, r := range []response{
		h.do("GET", "/approvals/"+a.ID, other.token, nil),
		h.do("POST", "/approvals/"+a.ID+"/approve", other.token, nil),
		h.do("POST", "/approvals/"+a.ID+"/reject", other.token, nil),
		h.do("GET", "/approvals/not-an-id", maker.token, nil),
		h.do("POST", "/approvals/"+disburse.NewID()+"/approve", maker.token, nil),
	} {
		problem(t, r, 404, "not_found")
	}
}

// TestE2EApprovalsIdempotent: the new POSTs take an Idempotency-Key like
// every other: a retry replays the first answer, the 202 and the 422 too.
func TestE2EApprovalsIdempotent(t *testing.T) { eachStore(t, testE2EApprovalsIdempotent) }

func testE2EApprovalsIdempotent(t *testing.T, store opener) {
	h := startIdem(t, store)
	maker := h.createOrg("Acme", false, "100.00")
	checker := h.approver(maker)
	h.setThreshold(maker, "0")
	b := h.createBatch(maker, "payroll")
	ok[Batch](t, h.addPayments(maker, b.ID, false, pay(nonMember, "60")), 200)

	submit := "/batches/" + b.ID + "/submit"
	first := h.sendKey("POST", submit, maker.token, "submit-1", ``)
	a := ok[approvalAnswer](t, first, 202).Approval
	sameAnswer(t, first, h.sendKey("POST", submit, maker.token, "submit-1", ``))
	if list := ok[[]Approval](t, h.do("GET", "/approvals", maker.token, nil), 200); len(list) != 1 {
		t.Errorf("%d approvals after a retried submit, want 1", len(list))
	}

	approve := "/approvals/" + a.ID + "/approve"
	decided := h.sendKey("POST", approve, checker.token, "approve-1", `{"comment":"ok"}`)
	if got := ok[approvalAnswer](t, decided, 200); got.Approval.Status != "APPROVED" || got.Batch.StatusCode != "OPEN" {
		t.Fatalf("approve: %s", decided.body)
	}
	sameAnswer(t, decided, h.sendKey("POST", approve, checker.token, "approve-1", `{"comment":"ok"}`))
	problem(t, h.sendKey("POST", approve, checker.token, "approve-1", `{"comment":"other"}`), 422, "idempotency_key_reused")
	if acc := h.account(maker); acc.Balance != "40.00" {
		t.Errorf("balance %s, want 40.00: the approval paid once", acc.Balance)
	}

	// A refusal for too little float is kept and replayed, 422 and all.
	b2 := h.createBatch(maker, "too much")
	ok[Batch](t, h.addPayments(maker, b2.ID, false, pay(nonMember, "50")), 200)
	a2 := ok[approvalAnswer](t, h.sendKey("POST", "/batches/"+b2.ID+"/submit", maker.token, "submit-2", ``), 202).Approval
	refused := h.sendKey("POST", "/approvals/"+a2.ID+"/approve", checker.token, "approve-2", ``)
	problem(t, refused, 422, "insufficient_float")
	sameAnswer(t, refused, h.sendKey("POST", "/approvals/"+a2.ID+"/approve", checker.token, "approve-2", ``))

	reject := "/approvals/" + a2.ID + "/reject"
	problem(t, h.sendKey("POST", reject, checker.token, "reject-1", ``), 409, "invalid_state") // rejected by the refusal already
	b3, a3 := h.heldBatch(maker, pay(nonMember, "1"))
	rejected := h.sendKey("POST", "/approvals/"+a3.ID+"/reject", checker.token, "reject-2", `{"comment":"no"}`)
	if got := ok[approvalAnswer](t, rejected, 200); got.Approval.Status != "REJECTED" || got.Batch.ID != b3.ID {
		t.Errorf("reject: %s", rejected.body)
	}
	sameAnswer(t, rejected, h.sendKey("POST", "/approvals/"+a3.ID+"/reject", checker.token, "reject-2", `{"comment":"no"}`))
}

// TestE2EApprovalsOnTwoServers: approvers approve one approval at once on
// two servers of one database, and an approve races a cancel: the submit
// runs once, and the ledger audits clean (the harness checks it).
func TestE2EApprovalsOnTwoServers(t *testing.T) { eachStore(t, testE2EApprovalsOnTwoServers) }

func testE2EApprovalsOnTwoServers(t *testing.T, store opener) {
	h := startIdem(t, store)
	replica := startReplica(t, h)
	servers := []*harness{h, replica}
	maker := h.createOrg("Acme", false, "1000.00")
	checkers := []org{h.approver(maker), h.approver(maker)}
	h.setThreshold(maker, "0")
	ok[Member](t, h.register(member, false), 201)

	for round := range 3 {
		_, a := h.heldBatch(maker, pay(member, "10"), pay(nonMember, "10"))
		statuses := make([]int, 4)
		var wg sync.WaitGroup
		for i := range statuses {
			wg.Go(func() {
				statuses[i] = servers[i%2].do("POST", "/approvals/"+a.ID+"/approve", checkers[i/2].token, nil).status
			})
		}
		wg.Wait()
		slices.Sort(statuses)
		if !slices.Equal(statuses, []int{200, 409, 409, 409}) {
			t.Errorf("round %d: four approvals answered %v, want one 200 and three 409", round, statuses)
		}
	}
	if acc := h.account(maker); acc.Balance != "940.00" || acc.HeldBalance != "30.00" {
		t.Errorf("balance %s held %s, want 940.00 and 30.00: each batch paid once", acc.Balance, acc.HeldBalance)
	}

	for round := range 3 {
		b, a := h.heldBatch(maker, pay(member, "10"), pay(nonMember, "10"))
		var approve, cancel response
		var wg sync.WaitGroup
		wg.Go(func() { approve = h.do("POST", "/approvals/"+a.ID+"/approve", checkers[0].token, nil) })
		wg.Go(func() { cancel = replica.do("POST", "/batches/"+b.ID+"/cancel", maker.token, nil) })
		wg.Wait()
		got := ok[Approval](t, h.do("GET", "/approvals/"+a.ID, maker.token, nil), 200)
		batch := ok[Batch](t, h.do("GET", "/batches/"+b.ID, maker.token, nil), 200)
		switch {
		case approve.status == 200 && cancel.status == 200 && got.Status == "APPROVED":
			// Approved, then the OPEN batch cancelled: its pending leg returned.
			if batch.StatusCode != "CANCELLED" || batch.Summary.SettledCount != 1 || batch.Summary.CancelledCount != 1 {
				t.Errorf("round %d: approved then cancelled: %+v", round, batch.Summary)
			}
		case approve.status == 409 && cancel.status == 200 && got.Status == "CANCELLED":
			if batch.StatusCode != "CANCELLED" || batch.SubmittedAt != "" {
				t.Errorf("round %d: withdrawn, yet the batch %+v", round, batch)
			}
		default:
			t.Errorf("round %d: approve %d %s, cancel %d %s; approval %s", round, approve.status, approve.body, cancel.status, cancel.body, got.Status)
		}
	}
}

// TestE2EApprovalEvents: approval.requested and approval.approved go to
// an endpoint that wants them, their data the approval as GET shows it.
func TestE2EApprovalEvents(t *testing.T) { eachStore(t, testE2EApprovalEvents) }

func testE2EApprovalEvents(t *testing.T, store opener) {
	h := startWebhooksOn(t, store)
	maker := h.createOrg("Acme", false, "100.00")
	checker := h.approver(maker)
	h.setThreshold(maker, "0")
	var mu sync.Mutex
	var bodies [][]byte
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
	}))
	defer rcv.Close()
	ok[webhookWire](t, h.do("POST", "/webhooks", maker.token, map[string]any{"url": rcv.URL,
		"events": []string{"approval.requested", "approval.approved", "approval.rejected", "approval.cancelled"}}), 201)

	_, a := h.heldBatch(maker, pay(nonMember, "10"))
	ok[approvalAnswer](t, h.do("POST", "/approvals/"+a.ID+"/approve", checker.token, nil), 200)
	n, err := h.hooks.Deliver(t.Context(), notify.NewWebhook(true), httpapi.WebhookRenderer{}, "e2e", webhooks.DefaultPolicy)
	if err != nil || n != 2 {
		t.Fatalf("Deliver = %d, %v; want 2", n, err)
	}
	var asRead any
	if err := json.Unmarshal(h.do("GET", "/approvals/"+a.ID, maker.token, nil).body, &asRead); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	var types []string
	for _, body := range bodies {
		var event struct {
			Type string `json:"type"`
			Data any    `json:"data"`
		}
		if err := json.Unmarshal(body, &event); err != nil {
			t.Fatal(err)
		}
		types = append(types, event.Type)
		if diff := cmp.Diff(asRead, event.Data); diff != "" {
			t.Errorf("%s: data is not the approval as GET shows it (-get +data):\n%s", event.Type, diff)
		}
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"approval.approved", "approval.requested"}) {
		t.Errorf("events %v", types)
	}
}
