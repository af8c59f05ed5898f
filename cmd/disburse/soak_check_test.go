package main

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse"
)

// soakEvent is a webhook event: its type and the id of its batch or payment.
type soakEvent struct{ kind, resource string }

// soakLeg is a leg settled to a payee: what their statement must list.
type soakLeg struct {
	payment string
	amount  disburse.Money
}

// settle waits, until deadline, for the worker to finish what the load
// left: no batch OPEN (every pending leg settled or reversed), no batch
// queued for a member check, every webhook delivered. It returns when.
func (r *soakRun) settle(deadline time.Time) time.Time {
	for {
		open := 0
		for _, o := range r.orgs {
			open += len(r.pages(o.token, "/batches?statusCode=OPEN"))
		}
		checks := r.count(`SELECT count(*) FROM member_checks`)
		undelivered := r.count(`SELECT count(*) FROM webhook_deliveries WHERE status <> 'DELIVERED'`)
		if open == 0 && checks == 0 && undelivered == 0 {
			return time.Now()
		}
		if time.Now().After(deadline) {
			r.t.Errorf("not settled: %d batches OPEN, %d member checks queued, %d webhook deliveries not delivered", open, checks, undelivered)
			return time.Now()
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// check compares what the service holds, once settled, with what the
// load was told: the ledger sound; for each organisation deposits =
// float + held + what it paid to wallets, exactly, nothing held; each
// member's wallet exactly the legs settled to them; every submit that
// answered 200 left its batch submitted; no batch, add, submit, cancel,
// deposit or registration done twice; every webhook event delivered.
func (r *soakRun) check() {
	c := client{t: r.t, admin: r.admin}
	if check := c.call(r.fleet.any(), "GET", "/admin/ledger/check", r.admin, "", 200); check["ok"] != true {
		r.t.Errorf("ledger check: %v", check["problems"])
	}
	legs := map[string][]soakLeg{}
	var events []soakEvent // what the final states imply
	var paid disburse.Money
	for _, o := range r.orgs {
		p, e, n := r.checkOrg(o, legs)
		paid, events, r.payments = paid+p, append(events, e...), r.payments+n
	}
	r.paid = paid
	r.checkWallets(legs, paid)
	r.checkWebhooks(events)
	// A 500 is the answer of a COMMIT whose outcome is in doubt, its
	// connection cut while it ran (docs/operations.md, "Lost connections,
	// retries and 503"), and nothing else.
	for _, line := range r.fleet.internalErrors() {
		if !strings.Contains(line, "sqlstore: commit: ") {
			r.t.Errorf("a 500 not of a COMMIT in doubt: %.500s", line)
		}
	}
}

// checkOrg checks one organisation's batches, money and audit log, adds
// the legs it settled to legs, and returns what it paid to wallets, the
// webhook events its batches' states imply, and its payments.
func (r *soakRun) checkOrg(o *soakOrg, legs map[string][]soakLeg) (paid disburse.Money, events []soakEvent, payments int) {
	t := r.t
	byName := map[string][]soakListedBatch{}
	for _, raw := range r.pages(o.token, "/batches") {
		var b soakListedBatch
		if err := json.Unmarshal(raw, &b); err != nil {
			t.Fatal(err)
		}
		byName[b.ExternalID] = append(byName[b.ExternalID], b)
	}
	audit := r.auditCounts("organisationId=" + o.id)
	for name, list := range byName {
		if len(list) > 1 {
			t.Errorf("batch %s created %d times", name, len(list))
		}
	}
	r.mu.Lock()
	recorded := slices.Clone(r.batches)
	r.mu.Unlock()
	for _, b := range recorded {
		if b.org != o {
			continue
		}
		list := byName[b.name]
		if len(list) == 0 || list[0].ID != b.id {
			t.Errorf("batch %s (%s) created: listed %v", b.name, b.id, list)
			continue
		}
		lb := list[0]
		if b.submitted && lb.StatusCode == "DRAFT" {
			t.Errorf("batch %s: its submit answered 200, and it is DRAFT", b.name)
		}
		if b.cancelled && lb.StatusCode != "CANCELLED" {
			t.Errorf("batch %s: its cancel answered 200, and it is %s", b.name, lb.StatusCode)
		}
		once := map[string]int{"batch.created": 1, "payments.added": b.adds, "batch.submitted": 0, "batch.cancelled": 0}
		if lb.SubmittedAt != "" {
			once["batch.submitted"] = 1
		}
		if lb.StatusCode == "CANCELLED" {
			once["batch.cancelled"] = 1
		}
		for action, want := range once {
			if got := audit[action+" "+b.id]; got != want {
				t.Errorf("batch %s: %d %s in the audit log, want %d", b.name, got, action, want)
			}
		}
		p, e, n := r.checkPayments(o, b, lb, legs)
		paid, events, payments = paid+p, append(events, e...), payments+n
	}
	if got := audit["account.deposited"]; got != o.deposits {
		t.Errorf("organisation %s: %d deposits in the audit log, %d answered 201", o.id, got, o.deposits)
	}
	if got := audit["webhook.created"]; got != 1 {
		t.Errorf("organisation %s: %d webhooks created, want 1", o.id, got)
	}
	var float, held disburse.Money
	for _, raw := range r.list(o.token, "/accounts") {
		var a struct{ Balance, HeldBalance soakAmount }
		if err := json.Unmarshal(raw, &a); err != nil {
			t.Fatal(err)
		}
		float, held = float+disburse.Money(a.Balance), held+disburse.Money(a.HeldBalance)
	}
	if held != 0 {
		t.Errorf("organisation %s: %s still held once settled", o.id, held)
	}
	if float+held+paid != o.deposited {
		t.Errorf("organisation %s: float %s + held %s + paid to wallets %s = %s, deposits %s: %s lost",
			o.id, float, held, paid, float+held+paid, o.deposited, o.deposited-(float+held+paid))
	}
	return paid, events, payments
}

// checkPayments checks batch b's payments (listed as lb): as many as
// its adds that answered 200, none PENDING. It adds the legs settled to
// legs, and returns what they paid, the events the states imply and the
// number of payments.
func (r *soakRun) checkPayments(o *soakOrg, b *soakBatch, lb soakListedBatch, legs map[string][]soakLeg) (paid disburse.Money, events []soakEvent, n int) {
	t := r.t
	switch lb.StatusCode {
	case "OPEN", "CLOSED":
		events = append(events, soakEvent{"batch.submitted", b.id})
	case "CANCELLED":
		if lb.SubmittedAt != "" {
			events = append(events, soakEvent{"batch.submitted", b.id})
		}
		events = append(events, soakEvent{"batch.cancelled", b.id})
	}
	if lb.StatusCode == "CLOSED" {
		events = append(events, soakEvent{"batch.closed", b.id})
	}
	list := r.pages(o.token, "/batches/"+b.id+"/payments")
	if len(list) != b.added {
		t.Errorf("batch %s: %d payments, its adds that answered 200 had %d", b.name, len(list), b.added)
	}
	for _, raw := range list {
		var p soakPayment
		if err := json.Unmarshal(raw, &p); err != nil {
			t.Fatal(err)
		}
		// A leg CANCELLED in a CLOSED batch was reversed; one settled
		// after the submit was PENDING first.
		leg := func(msisdn, status string, amount soakAmount, settledLater bool, settled, reversed string) {
			switch {
			case status == "PENDING":
				t.Errorf("payment %s PENDING once settled", p.ID)
			case status == "SETTLED":
				paid += disburse.Money(amount)
				legs[msisdn] = append(legs[msisdn], soakLeg{p.ID, disburse.Money(amount)})
				if settledLater && settled != "" {
					events = append(events, soakEvent{settled, p.ID})
				}
			case status == "CANCELLED" && lb.StatusCode == "CLOSED":
				events = append(events, soakEvent{reversed, p.ID})
			}
		}
		leg(p.Msisdn, p.StatusCode, p.Amount, p.SettledAt != p.SubmittedAt, "payment.settled", "payment.reversed")
		if p.ReferralStatusCode != "" {
			// Its settling time is not listed: only its reversal is implied.
			leg(p.ReferralMsisdn, p.ReferralStatusCode, p.ReferralAmount, false, "", "payment.referral.reversed")
		}
	}
	return paid, events, len(list)
}

// checkWallets requires each member's statement to list exactly the legs
// settled to them, the wallets to hold what the organisations paid, no
// leg settled to anyone never registered, and each member registered once.
func (r *soakRun) checkWallets(legs map[string][]soakLeg, paid disburse.Money) {
	t := r.t
	for m := range legs {
		if !r.members[m] {
			t.Errorf("legs settled to %s, never registered", m)
		}
	}
	registered := r.auditCounts("action=member.registered")
	c := client{t: t, admin: r.admin}
	var wallets disburse.Money
	for m := range r.members {
		if got := registered["member.registered "+m]; got != 1 {
			t.Errorf("member %s registered %d times", m, got)
		}
		status, b := c.do(r.fleet.any(), "GET", "/admin/members/"+m+"/statement", r.admin, "")
		var st struct {
			Balance soakAmount
			Entries []struct {
				PaymentID string
				Amount    soakAmount
			}
		}
		if status != 200 || json.Unmarshal(b, &st) != nil {
			t.Fatalf("statement of %s: %d %.300s", m, status, b)
		}
		wallets += disburse.Money(st.Balance)
		var entries []soakLeg
		for _, e := range st.Entries {
			entries = append(entries, soakLeg{e.PaymentID, disburse.Money(e.Amount)})
		}
		byLeg := func(a, b soakLeg) int {
			if a.payment != b.payment {
				return strings.Compare(a.payment, b.payment)
			}
			return int(a.amount - b.amount)
		}
		want := slices.Clone(legs[m])
		slices.SortFunc(entries, byLeg)
		slices.SortFunc(want, byLeg)
		if !slices.Equal(entries, want) {
			t.Errorf("member %s: statement lists %d legs, %d settled to them", m, len(entries), len(want))
		}
	}
	if wallets != paid {
		t.Errorf("wallets hold %s, the organisations paid %s to them", wallets, paid)
	}
}

// checkWebhooks requires every delivery in the outbox DELIVERED and
// received, signed, at least once, and every event the final states
// imply among them; and one endpoint per organisation.
func (r *soakRun) checkWebhooks(events []soakEvent) {
	t := r.t
	rows, err := r.db.QueryContext(context.Background(), `SELECT CAST(id AS TEXT), event_type, CAST(resource_id AS TEXT), status FROM webhook_deliveries`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	outbox := map[soakEvent]bool{}
	for rows.Next() {
		var id, eventType, resource, status string
		if err := rows.Scan(&id, &eventType, &resource, &status); err != nil {
			t.Fatal(err)
		}
		outbox[soakEvent{eventType, resource}] = true
		r.deliveries++
		copies := r.hooks.received(id)
		if status != "DELIVERED" || len(copies) == 0 {
			t.Errorf("webhook delivery %s (%s %s): %s, received %d times", id, eventType, resource, status, len(copies))
		}
		// A copy again is expected only of an attempt in flight when a
		// fault struck (docs/webhooks.md, "Leases").
		for i := 1; i < len(copies); i++ {
			r.redelivered++
			first, again := copies[i-1], copies[i]
			if f, ok := r.fleet.faultBefore(first.at, again.at); ok {
				r.repeats[f] = append(r.repeats[f], again.at.Sub(r.fleet.faultAt(f)))
				continue
			}
			if r.unexplained++; r.unexplained <= 5 {
				t.Logf("delivery %s (%s) received at %s and again %v later (over the same connection: %v), %v after the start of the last fault; in the 10 s before: %s",
					id, eventType, first.at.UTC().Format("15:04:05.000"), again.at.Sub(first.at).Round(time.Millisecond), first.from == again.from,
					r.fleet.sinceFault(first.at).Round(time.Millisecond), r.stalls.within(first.at, 10*time.Second))
			}
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if received := r.hooks.got(e.kind, e.resource); !outbox[e] || !received {
			t.Errorf("webhook event %s of %s: in the outbox %v, received %v", e.kind, e.resource, outbox[e], received)
		}
	}
	if n := r.hooks.unverified(); n != 0 {
		t.Errorf("%d webhook deliveries whose signature did not verify", n)
	}
	for _, o := range r.orgs {
		if hooks := r.list(o.token, "/webhooks"); len(hooks) != 1 {
			t.Errorf("organisation %s: %d webhook endpoints, want 1", o.id, len(hooks))
		}
	}
}
