package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// TestE2EReferralLegs: a referral leg is paid, held, settled on
// registration and reversed by exactly the rules of its payment (docs/api.md
// section 6), independently of it; statements show one entry per settled
// leg; SMS and PUSH go out per leg (docs/api.md section 8); the reversal
// period is the one in force at submit.
func TestE2EReferralLegs(t *testing.T) { eachStore(t, testE2EReferralLegs) }

func testE2EReferralLegs(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", true, "1000.00")
	ok[Organisation](t, h.do("PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"reversalPeriodSeconds":60}`), 200)
	ok[Member](t, h.register(member, true), 201)

	b := h.createBatch(a, "referrals")
	referred := func(msisdn, amount, referral, referralAmount string) string {
		return `{"msisdn":"` + msisdn + `","amount":` + amount + `,"referralMsisdn":"` + referral + `","referralAmount":` + referralAmount + `}`
	}
	ok[Batch](t, h.addPayments(a, b.ID, false,
		referred(nonMember, "100", member, "10"), // held; its referral paid at once
		referred(member, "50", third, "5"),       // paid; its referral held
		referred(third, "20", nonMember, "2"),    // both held
	), 200)

	submitted := h.clock.Now()
	got := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200)
	legs := func(ps []Payment) []string {
		var out []string
		for _, p := range ps {
			out = append(out, p.Msisdn+":"+p.StatusCode+"/"+p.ReferralStatusCode)
		}
		return out
	}
	want := []string{nonMember + ":PENDING/SETTLED", member + ":SETTLED/PENDING", third + ":PENDING/PENDING"}
	if diff := cmp.Diff(want, legs(got.Payments)); diff != "" {
		t.Fatalf("legs after submit (-want +got):\n%s", diff)
	}
	if got.StatusCode != "OPEN" {
		t.Errorf("batch %s, want OPEN", got.StatusCode)
	}
	if acc := h.account(a); acc.Balance != "813.00" || acc.HeldBalance != "127.00" {
		t.Errorf("account after submit: balance %s held %s, want 813.00 and 127.00", acc.Balance, acc.HeldBalance)
	}

	// One SMS per leg to a non-member, naming the organisation, the amount
	// and the registration deadline; one PUSH per leg paid to a member
	// with the app.
	notes := ok[[]Notification](t, h.do("GET", "/admin/notifications", adminToken, nil), 200)
	deadline := submitted.Add(time.Minute).Format("2 January 2006")
	var sms, push []string
	for _, n := range notes {
		switch n.Channel {
		case "SMS":
			if !strings.HasPrefix(n.Message, "Acme sent you KES ") || !strings.Contains(n.Message, deadline) {
				t.Errorf("SMS %q: want the organisation, the amount and the deadline %s", n.Message, deadline)
			}
			amount, _, _ := strings.Cut(strings.TrimPrefix(n.Message, "Acme sent you KES "), ". ")
			sms = append(sms, n.Recipient+" "+amount)
		case "PUSH":
			push = append(push, n.Recipient)
		}
	}
	wantSMS := []string{nonMember + " 100.00", third + " 5.00", third + " 20.00", nonMember + " 2.00"}
	if diff := cmp.Diff(wantSMS, sms, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("SMS recipients and amounts (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{member, member}, push); diff != "" {
		t.Errorf("PUSH recipients (-want +got):\n%s", diff)
	}

	// A later change of the period applies to later batches only.
	ok[Organisation](t, h.do("PUT", "/admin/organisations/"+a.ID+"/settings", adminToken, `{"reversalPeriodDays":30}`), 200)
	first := ok[Payment](t, h.do("GET", "/payments/"+got.Payments[0].ID, a.token, nil), 200)
	wantTime(t, "reversalDueAt", first.ReversalDueAt, submitted.Add(time.Minute))

	// The non-member registers within the period: both legs waiting for
	// them settle, whichever payment they belong to.
	h.clock.Advance(30 * time.Second)
	ok[Member](t, h.register(nonMember, true), 201)
	h.clock.Advance(31 * time.Second)
	if n, err := h.svc.ReverseDue(t.Context()); err != nil || n != 2 {
		t.Fatalf("ReverseDue: %d, %v; want the 2 payments with a leg to %s", n, err, third)
	}
	final := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200)
	want = []string{nonMember + ":SETTLED/SETTLED", member + ":SETTLED/CANCELLED", third + ":CANCELLED/SETTLED"}
	if diff := cmp.Diff(want, legs(final)); diff != "" {
		t.Errorf("legs at the end (-want +got):\n%s", diff)
	}
	batch := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200)
	wantSummary := Summary{PaymentsAmount: "170.00", PaymentsCount: 3, ReferralsAmount: "17.00", SettledAmount: "150.00", SettledCount: 2,
		CancelledAmount: "20.00", CancelledCount: 1, PendingAmount: "0.00"}
	if diff := cmp.Diff(&wantSummary, batch.Summary); batch.StatusCode != "CLOSED" || diff != "" {
		t.Errorf("batch %s, summary (-want +got):\n%s", batch.StatusCode, diff)
	}
	// 813 + the two reversed legs (5 + 20).
	if acc := h.account(a); acc.Balance != "838.00" || acc.HeldBalance != "0.00" {
		t.Errorf("account at the end: balance %s held %s, want 838.00 and 0.00", acc.Balance, acc.HeldBalance)
	}

	for _, c := range []struct {
		msisdn, balance string
		amounts         []string
	}{
		{member, "60.00", []string{"10.00", "50.00"}},
		{nonMember, "102.00", []string{"100.00", "2.00"}},
		{third, "0.00", nil},
	} {
		st := ok[Statement](t, h.do("GET", "/admin/members/"+c.msisdn+"/statement", adminToken, nil), 200)
		var amounts []string
		for _, e := range st.Entries {
			amounts = append(amounts, e.Amount.String())
			if e.OrganisationName != "Acme" {
				t.Errorf("%s entry from %q", c.msisdn, e.OrganisationName)
			}
		}
		if string(st.Balance) != c.balance || !cmp.Equal(c.amounts, amounts) {
			t.Errorf("statement of %s: balance %s, entries %v; want %s, %v", c.msisdn, st.Balance, amounts, c.balance, c.amounts)
		}
	}
}
