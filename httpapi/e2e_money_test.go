package httpapi_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/disburse/disburse"
)

type Member struct {
	Msisdn       string `json:"msisdn"`
	Firstname    string `json:"firstname"`
	Lastname     string `json:"lastname"`
	AppInstalled bool   `json:"appInstalled"`
	RegisteredAt string `json:"registeredAt"`
}

func statuses(ps []Payment) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Msisdn+":"+p.StatusCode)
	}
	return out
}

// TestE2ESubmitAllMembers: every payee a member → paid at once, CLOSED (docs/api.md section 6).
func TestE2ESubmitAllMembers(t *testing.T) { eachStore(t, testE2ESubmitAllMembers) }

func testE2ESubmitAllMembers(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, true), 201)
	ok[Member](t, h.register(third, false), 201)
	b := h.createBatch(a, "November")
	added := ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "150.00"), pay(third, "75.50")), 200)

	h.clock.Advance(time.Minute)
	now := h.clock.Now()
	got := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, `{"ignored":true}`), 200)
	if got.StatusCode != "CLOSED" {
		t.Errorf("status %s, want CLOSED", got.StatusCode)
	}
	wantTime(t, "submittedAt", got.SubmittedAt, now)
	want := Summary{PaymentsAmount: "225.50", PaymentsCount: 2, ReferralsAmount: "0.00", SettledAmount: "225.50", SettledCount: 2,
		CancelledAmount: "0.00", PendingAmount: "0.00"}
	if diff := cmp.Diff(&want, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{member + ":SETTLED", third + ":SETTLED"}, statuses(got.Payments)); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
	for _, p := range got.Payments {
		wantTime(t, "settledAt", p.SettledAt, now)
		wantTime(t, "submittedAt", p.SubmittedAt, now)
		if p.ReversalDueAt != "" || p.IsMember == nil || !*p.IsMember {
			t.Errorf("settled payment %+v", p)
		}
	}
	if got := h.account(a); got.Balance != "774.50" || got.HeldBalance != "0.00" {
		t.Errorf("account %+v", got)
	}

	// The statement shows the settled payment; only the app user got a PUSH.
	st := ok[Statement](t, h.do("GET", "/admin/members/"+member+"/statement", adminToken, nil), 200)
	wantSt := Statement{Msisdn: member, Balance: "150.00", Entries: []StatementEntry{{
		PaymentID: added.Payments[0].ID, OrganisationName: "Acme", Amount: "150.00", SettledAt: st.Entries[0].SettledAt, Leg: "PAYMENT", Currency: "KES",
	}}}
	if diff := cmp.Diff(wantSt, st); diff != "" {
		t.Errorf("statement (-want +got):\n%s", diff)
	}
	wantTime(t, "entry settledAt", st.Entries[0].SettledAt, now)
	notes := ok[[]Notification](t, h.do("GET", "/admin/notifications?recipient="+member, adminToken, nil), 200)
	if len(notes) != 1 || notes[0].Channel != "PUSH" || notes[0].Status != "PENDING" || notes[0].Recipient != member || notes[0].Message == "" {
		t.Errorf("notifications %+v", notes)
	}
	if notes := ok[[]Notification](t, h.do("GET", "/admin/notifications?recipient="+third, adminToken, nil), 200); len(notes) != 0 {
		t.Errorf("a member without the app was notified: %+v", notes)
	}

	// A CLOSED batch: submit, add, update, delete, cancel are all 409.
	problem(t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 409, "invalid_state")
	problem(t, h.addPayments(a, b.ID, false, pay(member, "1")), 409, "invalid_state")
	problem(t, h.do("PUT", "/batches/"+b.ID, a.token, `{"name":"x"}`), 409, "invalid_state")
	problem(t, h.do("DELETE", "/payments/"+added.Payments[0].ID, a.token, nil), 409, "invalid_state")
	problem(t, h.do("POST", "/batches/"+b.ID+"/cancel", a.token, nil), 409, "invalid_state")
}

// TestE2ESubmitMixedThenRegister: a non-member's payment waits in the
// holding account; registration settles it, in every organisation, and closes the batches.
func TestE2ESubmitMixedThenRegister(t *testing.T) { eachStore(t, testE2ESubmitMixedThenRegister) }

func testE2ESubmitMixedThenRegister(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	o := h.createOrg("Other", false, "100.00")
	ok[Member](t, h.register(member, false), 201)
	b := h.createBatch(a, "mixed")
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "100"), pay(nonMember, "50")), 200)
	ob := h.createBatch(o, "other")
	ok[Batch](t, h.addPayments(o, ob.ID, false, pay(nonMember, "20")), 200)

	submitted := h.clock.Now()
	got := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200)
	ok[Batch](t, h.do("POST", "/batches/"+ob.ID+"/submit", o.token, nil), 200)
	if got.StatusCode != "OPEN" {
		t.Errorf("status %s, want OPEN", got.StatusCode)
	}
	want := Summary{PaymentsAmount: "150.00", PaymentsCount: 2, ReferralsAmount: "0.00", SettledAmount: "100.00", SettledCount: 1,
		CancelledAmount: "0.00", PendingAmount: "50.00", PendingCount: 1}
	if diff := cmp.Diff(&want, got.Summary); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
	pending := got.Payments[1]
	if pending.StatusCode != "PENDING" || *pending.IsMember || pending.SettledAt != "" {
		t.Errorf("pending payment %+v", pending)
	}
	wantTime(t, "reversalDueAt", pending.ReversalDueAt, submitted.Add(60*24*time.Hour))
	if got := h.account(a); got.Balance != "850.00" || got.HeldBalance != "50.00" {
		t.Errorf("account %+v", got)
	}
	sms := ok[[]Notification](t, h.do("GET", "/admin/notifications?recipient="+nonMember, adminToken, nil), 200)
	if len(sms) != 2 || sms[0].Channel != "SMS" || sms[1].Channel != "SMS" {
		t.Errorf("SMS %+v", sms)
	}
	if all := ok[[]Notification](t, h.do("GET", "/admin/notifications", adminToken, nil), 200); len(all) != 2 {
		t.Errorf("all notifications: %+v", all)
	}
	if r := ok[struct {
		Msisdn string `json:"msisdn"`
		Exists bool   `json:"exists"`
	}](t, h.do("GET", "/members/"+nonMember+"/exists", a.token, nil), 200); r.Exists || r.Msisdn != nonMember {
		t.Errorf("exists %+v", r)
	}

	// Registration: 201, both organisations' legs settle, both batches close.
	h.clock.Advance(24 * time.Hour)
	a.token, o.token = h.token(a.key), h.token(o.key) // the old ones expired
	registered := h.clock.Now()
	m := ok[Member](t, h.do("POST", "/admin/members", adminToken, `{"msisdn":"`+nonMember+`","firstname":"Jo","appInstalled":true}`), 201)
	if diff := cmp.Diff(Member{Msisdn: nonMember, Firstname: "Jo", AppInstalled: true, RegisteredAt: m.RegisteredAt}, m); diff != "" {
		t.Errorf("member (-want +got):\n%s", diff)
	}
	wantTime(t, "registeredAt", m.RegisteredAt, registered)
	for _, c := range []struct {
		o  org
		id string
	}{{a, b.ID}, {o, ob.ID}} {
		if got := ok[Batch](t, h.do("GET", "/batches/"+c.id, c.o.token, nil), 200); got.StatusCode != "CLOSED" || got.Summary.PendingCount != 0 {
			t.Errorf("%s after registration: %s %+v", c.o.Name, got.StatusCode, got.Summary)
		}
	}
	p := ok[Payment](t, h.do("GET", "/payments/"+pending.ID, a.token, nil), 200)
	if p.StatusCode != "SETTLED" {
		t.Errorf("payment %+v", p)
	}
	wantTime(t, "settledAt", p.SettledAt, registered)
	if got := h.account(a); got.Balance != "850.00" || got.HeldBalance != "0.00" {
		t.Errorf("account %+v", got)
	}
	st := ok[Statement](t, h.do("GET", "/admin/members/"+nonMember+"/statement", adminToken, nil), 200)
	var orgs []string
	for _, e := range st.Entries {
		orgs = append(orgs, e.OrganisationName+":"+e.Amount.String())
	}
	if st.Balance != "70.00" || !cmp.Equal([]string{"Acme:50.00", "Other:20.00"}, orgs, cmpopts.SortSlices(func(x, y string) bool { return x < y })) {
		t.Errorf("statement %+v", st)
	}

	// Registering again is 200 with the stored member, unchanged.
	again := ok[Member](t, h.register(nonMember, false), 200)
	if diff := cmp.Diff(m, again); diff != "" {
		t.Errorf("second registration (-first +second):\n%s", diff)
	}
}

// TestE2ESubmitRefused: an empty batch and a batch the float cannot cover
// are 422, and nothing changes.
func TestE2ESubmitRefused(t *testing.T) { eachStore(t, testE2ESubmitRefused) }

func testE2ESubmitRefused(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", true, "100.00")

	empty := h.createBatch(a, "empty")
	problem(t, h.do("POST", "/batches/"+empty.ID+"/submit", a.token, nil), 422, "batch_empty")
	onlyDeleted := ok[Batch](t, h.addPayments(a, empty.ID, false, pay(member, "1")), 200)
	ok[Payment](t, h.do("DELETE", "/payments/"+onlyDeleted.Payments[0].ID, a.token, nil), 200)
	problem(t, h.do("POST", "/batches/"+empty.ID+"/submit", a.token, nil), 422, "batch_empty")

	b := h.createBatch(a, "too big")
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "60"),
		`{"msisdn":"`+nonMember+`","amount":40,"referralAmount":1,"referralMsisdn":"`+third+`"}`), 200)
	before := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200)
	p := problem(t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 422, "insufficient_float")
	if p["required"] != json.Number("101.00") || p["available"] != json.Number("100.00") {
		t.Errorf("required %v, available %v; want 101.00 and 100.00", p["required"], p["available"])
	}
	after := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200)
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("batch changed (-before +after):\n%s", diff)
	}
	list := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200)
	if diff := cmp.Diff([]string{member + ":DRAFT", nonMember + ":DRAFT"}, statuses(list)); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
	if got := h.account(a); got.Balance != "100.00" || got.HeldBalance != "0.00" {
		t.Errorf("account %+v", got)
	}
	if notes := ok[[]Notification](t, h.do("GET", "/admin/notifications", adminToken, nil), 200); len(notes) != 0 {
		t.Errorf("notifications written: %+v", notes)
	}

	// One unit more and it goes: the referral leg is paid from the float too.
	h.deposit(a.Accounts[0].ID, "1")
	got := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200)
	if got.StatusCode != "OPEN" || got.Payments[1].ReferralStatusCode != "PENDING" {
		t.Errorf("after deposit: %s, %+v", got.StatusCode, got.Payments[1])
	}
	if got := h.account(a); got.Balance != "0.00" || got.HeldBalance != "101.00" {
		t.Errorf("account %+v", got)
	}
}

// TestE2EReversal: a leg unclaimed for the reversal period returns to the
// float; the sweep is the worker's svc.ReverseDue, called here directly.
func TestE2EReversal(t *testing.T) { eachStore(t, testE2EReversal) }

func testE2EReversal(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "500.00")
	settings := ok[Organisation](t, h.do("PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"reversalPeriodSeconds":60}`), 200)
	if settings.ReversalPeriodSeconds != 60 || settings.ReferralsEnabled {
		t.Errorf("settings %+v", settings)
	}
	wantFailures(t, h.do("PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"reversalPeriodSeconds":0}`), failure{"ReversalPeriodSeconds", "0", nil})
	wantFailures(t, h.do("PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"reversalPeriodDays":"1"}`), failure{"ReversalPeriodDays", "1", nil})
	problem(t, h.do("PUT", "/admin/organisations/"+disburse.NewID()+"/settings", adminToken, `{}`), 404, "not_found")

	b := h.createBatch(a, "unclaimed")
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(nonMember, "120")), 200)
	submitted := h.clock.Now()
	p := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200).Payments[0]
	wantTime(t, "reversalDueAt", p.ReversalDueAt, submitted.Add(time.Minute))

	h.clock.Advance(59 * time.Second)
	if n, err := h.svc.ReverseDue(t.Context()); err != nil || n != 0 {
		t.Fatalf("ReverseDue before due: %d, %v", n, err)
	}
	h.clock.Advance(time.Second)
	if n, err := h.svc.ReverseDue(t.Context()); err != nil || n != 1 {
		t.Fatalf("ReverseDue when due: %d, %v", n, err)
	}
	got := ok[Payment](t, h.do("GET", "/payments/"+p.ID, a.token, nil), 200)
	if got.StatusCode != "CANCELLED" || got.SettledAt != "" {
		t.Errorf("reversed payment %+v", got)
	}
	wantTime(t, "cancelledAt", got.CancelledAt, h.clock.Now())
	batch := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200)
	if batch.StatusCode != "CLOSED" || batch.Summary.CancelledAmount != "120.00" || batch.Summary.CancelledCount != 1 || batch.Summary.PendingCount != 0 {
		t.Errorf("batch %s %+v", batch.StatusCode, batch.Summary)
	}
	if got := h.account(a); got.Balance != "500.00" || got.HeldBalance != "0.00" {
		t.Errorf("account %+v", got)
	}
	// Registering later finds nothing to settle.
	ok[Member](t, h.register(nonMember, false), 201)
	if st := ok[Statement](t, h.do("GET", "/admin/members/"+nonMember+"/statement", adminToken, nil), 200); st.Balance != "0.00" || len(st.Entries) != 0 {
		t.Errorf("statement %+v", st)
	}
}

// TestE2ECancel: from DRAFT nothing moves; from OPEN pending legs return to
// the float and settled ones stay; CLOSED and CANCELLED are 409.
func TestE2ECancel(t *testing.T) { eachStore(t, testE2ECancel) }

func testE2ECancel(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, false), 201)

	draft := h.createBatch(a, "draft")
	ok[Batch](t, h.addPayments(a, draft.ID, false, pay(member, "10"), pay(nonMember, "20")), 200)
	got := ok[Batch](t, h.do("POST", "/batches/"+draft.ID+"/cancel", a.token, nil), 200)
	if got.StatusCode != "CANCELLED" || got.Summary.CancelledCount != 2 || got.Summary.CancelledAmount != "30.00" || got.Payments != nil {
		t.Errorf("cancelled draft %s %+v", got.StatusCode, got.Summary)
	}
	for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+draft.ID+"/payments", a.token, nil), 200) {
		if p.StatusCode != "CANCELLED" {
			t.Errorf("payment %+v", p)
		}
		wantTime(t, "cancelledAt", p.CancelledAt, h.clock.Now())
	}
	problem(t, h.do("POST", "/batches/"+draft.ID+"/cancel", a.token, nil), 409, "invalid_state")
	if got := h.account(a); got.Balance != "1000.00" {
		t.Errorf("account %+v", got)
	}

	open := h.createBatch(a, "open")
	ok[Batch](t, h.addPayments(a, open.ID, false, pay(member, "100"), pay(nonMember, "200")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+open.ID+"/submit", a.token, nil), 200)
	if got := h.account(a); got.Balance != "700.00" || got.HeldBalance != "200.00" {
		t.Errorf("account after submit %+v", got)
	}
	got = ok[Batch](t, h.do("POST", "/batches/"+open.ID+"/cancel", a.token, nil), 200)
	want := Summary{PaymentsAmount: "300.00", PaymentsCount: 2, ReferralsAmount: "0.00", SettledAmount: "100.00", SettledCount: 1,
		CancelledAmount: "200.00", CancelledCount: 1, PendingAmount: "0.00"}
	if got.StatusCode != "CANCELLED" || !cmp.Equal(&want, got.Summary) {
		t.Errorf("cancelled open batch %s %s", got.StatusCode, cmp.Diff(&want, got.Summary))
	}
	if diff := cmp.Diff([]string{member + ":SETTLED", nonMember + ":CANCELLED"},
		statuses(ok[[]Payment](t, h.do("GET", "/batches/"+open.ID+"/payments", a.token, nil), 200))); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
	if got := h.account(a); got.Balance != "900.00" || got.HeldBalance != "0.00" {
		t.Errorf("account after cancel %+v", got)
	}
	problem(t, h.do("POST", "/batches/"+open.ID+"/cancel", a.token, nil), 409, "invalid_state")

	closed := h.createBatch(a, "closed")
	ok[Batch](t, h.addPayments(a, closed.ID, false, pay(member, "1")), 200)
	ok[Batch](t, h.do("POST", "/batches/"+closed.ID+"/submit", a.token, nil), 200)
	problem(t, h.do("POST", "/batches/"+closed.ID+"/cancel", a.token, nil), 409, "invalid_state")
}
