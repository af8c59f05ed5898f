package usecasetest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/organisations"
)

// auditOf reads the newest entries of action from the audit log, through
// the operators' port of the store (sqlstore's has it).
func auditOf(t *testing.T, store disburse.Store, action string) []disburse.AuditEntry {
	t.Helper()
	ops, ok := store.(operators.Store)
	if !ok {
		t.Fatalf("%T is no operators.Store", store)
	}
	log, err := operators.New(ops, "").Audit(t.Context(), "", action, operators.PageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return log.Items
}

// testManyRegistrationsAtOnce registers many payees at once, each three
// times, so that registrations share transactions (RegisterMember groups
// them): each caller must still get the answer it would have alone, one
// "created" per payee, and every leg must settle once, referral legs to a
// payee of the same group too.
func testManyRegistrationsAtOnce(t *testing.T, open func(t *testing.T) disburse.Store) {
	store := open(t)
	f := newFixture(t, store)
	const payees, tries = 24, 3
	msisdns := make([]string, payees)
	in := make([]disburse.PaymentInput, payees)
	for i := range msisdns {
		msisdns[i] = fmt.Sprintf("2547123460%02d", i)
		in[i] = disburse.PaymentInput{Msisdn: msisdns[i], Amount: "10.00"}
		if i%2 == 1 { // a referral to the payee before
			in[i].ReferralMsisdn, in[i].ReferralAmount = msisdns[i-1], "1.00"
		}
	}
	yes := true
	if _, _, err := organisations.UpdateSettings(f.ctx, f.svc, f.org, organisations.Settings{ReferralsEnabled: &yes}); err != nil {
		t.Fatal(err)
	}
	b, err := f.svc.CreateBatch(f.ctx, f.org, disburse.BatchInput{Name: "many"})
	if err != nil {
		t.Fatal(err)
	}
	clear := false
	if _, _, err := f.svc.AddPayments(f.ctx, f.org, b.ID, disburse.AddPaymentsInput{ClearExisting: &clear, Payments: in}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Submit(f.ctx, f.org, b.ID); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		member  disburse.Member
		created bool
	}
	answers := make([]answer, payees*tries)
	errs := f.race(payees*tries, func(i int) error {
		m, created, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: msisdns[i%payees], Firstname: "P", AppInstalled: true})
		answers[i] = answer{m, created}
		return err
	})
	created := make(map[string]int)
	for i, err := range errs {
		a := answers[i]
		switch {
		case err != nil:
			t.Errorf("registration %d: %v", i, err)
		case a.member.Msisdn != msisdns[i%payees] || a.member.Firstname != "P" || a.member.RegisteredAt.IsZero():
			t.Errorf("registration %d of %s answered %+v", i, msisdns[i%payees], a.member)
		case a.created:
			created[a.member.Msisdn]++
		}
	}
	for _, msisdn := range msisdns {
		if created[msisdn] != 1 {
			t.Errorf("%s: %d registrations answered created, want 1", msisdn, created[msisdn])
		}
	}
	batch, err := f.svc.Batch(f.ctx, f.org, b.ID)
	if err != nil {
		t.Fatal(err)
	}
	if s := batch.Summary; batch.Status != disburse.BatchClosed || s.SettledCount != payees || s.HeldAmount != 0 {
		t.Errorf("batch %s with %+v: want CLOSED with every payment and referral settled", batch.Status, s)
	}
	for i, msisdn := range msisdns {
		want := 1 + (i+1)%2 // an even payee is paid a referral by the next
		if st, err := f.svc.Statement(f.ctx, msisdn); err != nil || len(st.Entries) != want {
			t.Errorf("%s: statement of %d entries (%v), want %d", msisdn, len(st.Entries), err, want)
		}
	}
	// One audit entry a payee, naming the payments it settled.
	audited := make(map[string]string)
	for _, e := range auditOf(t, store, "member.registered") {
		if e.Action == "member.registered" {
			if _, twice := audited[e.Subject]; twice {
				t.Errorf("%s: registered twice in the audit log", e.Subject)
			}
			audited[e.Subject] = e.Details
		}
	}
	for i, msisdn := range msisdns {
		want := fmt.Sprintf(`"pendingLegsSettled":%d`, 1+(i+1)%2)
		if !strings.Contains(audited[msisdn], want) {
			t.Errorf("%s: audit entry %q, want %s", msisdn, audited[msisdn], want)
		}
	}
	f.checkLedger(t)
}
