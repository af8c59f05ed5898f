package httpapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/disburse/disburse/internal/testenv"
)

const (
	member    = "254712345678" // a valid Kenyan mobile number
	nonMember = "447911123456" // a valid UK mobile number
	third     = "254112345678"
)

// TestE2EAddPaymentsValidation: every rule of docs/api.md section S4.2 and S7.1 and docs/api.md
// section 4.1, each failure with its field, value and index; nothing stored on failure.
func TestE2EAddPaymentsValidation(t *testing.T) { eachStore(t, testE2EAddPaymentsValidation) }

func testE2EAddPaymentsValidation(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "")
	b := h.createBatch(a, "November")
	good := pay(member, "10")

	for _, tt := range []struct {
		name    string
		payment string
		want    failure // at index 1, after one good payment
	}{
		{"local leading zero", pay("0712345678", "10"), failure{"Msisdn", "0712345678", at(1)}},
		{"7 digits", pay("2547123", "10"), failure{"Msisdn", "2547123", at(1)}},
		{"16 digits", pay("2547123456789012", "10"), failure{"Msisdn", "2547123456789012", at(1)}},
		{"not a number of its country", pay("25471234567", "10"), failure{"Msisdn", "25471234567", at(1)}},
		{"plus sign", pay("+254712345678", "10"), failure{"Msisdn", "+254712345678", at(1)}},
		{"letters", pay("25471234567a", "10"), failure{"Msisdn", "25471234567a", at(1)}},
		{"msisdn missing", `{"amount":10}`, failure{"Msisdn", "", at(1)}},
		{"msisdn a number", `{"msisdn":254712345678,"amount":10}`, failure{"Msisdn", "254712345678", at(1)}},
		{"three decimals", pay(member, "1.001"), failure{"Amount", "1.001", at(1)}},
		{"exponent", pay(member, "1e2"), failure{"Amount", "1e2", at(1)}},
		{"small exponent", pay(member, "1e-3"), failure{"Amount", "1e-3", at(1)}},
		{"a string", pay(member, `"10"`), failure{"Amount", "10", at(1)}},
		{"negative", pay(member, "-5"), failure{"Amount", "-5", at(1)}},
		{"null", pay(member, "null"), failure{"Amount", "null", at(1)}},
		{"past int64", pay(member, "99999999999999999999"), failure{"Amount", "99999999999999999999", at(1)}},
		{"below one", pay(member, "0.5"), failure{"Amount", "0.5", at(1)}},
		{"zero", pay(member, "0"), failure{"Amount", "0", at(1)}},
		{"amount missing", `{"msisdn":"` + member + `"}`, failure{"Amount", "", at(1)}},
		{"above the maximum", pay(member, "1000000.01"), failure{"Amount", "1000000.01", at(1)}},
		{"an object", pay(member, `{"value":10}`), failure{"Amount", "object", at(1)}},
		{"an array", pay(member, `[10]`), failure{"Amount", "array", at(1)}},
		{"toll-free", pay("18002345678", "10"), failure{"Msisdn", "18002345678", at(1)}},
		{"premium rate", pay("449090000000", "10"), failure{"Msisdn", "449090000000", at(1)}},
		{"personal number", pay("15005550006", "10"), failure{"Msisdn", "15005550006", at(1)}},
		{"msisdn an object", `{"msisdn":{"n":1},"amount":10}`, failure{"Msisdn", "object", at(1)}},
		{"firstname too long", `{"msisdn":"` + member + `","amount":1,"firstname":"` + strings.Repeat("é", 101) + `"}`, failure{"Firstname", strings.Repeat("é", 101), at(1)}},
		{"lastname too long", `{"msisdn":"` + member + `","amount":1,"lastname":"` + strings.Repeat("x", 101) + `"}`, failure{"Lastname", strings.Repeat("x", 101), at(1)}},
		{"externalId too long", `{"msisdn":"` + member + `","amount":1,"externalId":"` + strings.Repeat("x", 101) + `"}`, failure{"ExternalId", strings.Repeat("x", 101), at(1)}},
		{"a payment not an object", `"payment"`, failure{"Payments", "payment", at(1)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			wantFailures(t, h.addPayments(a, b.ID, false, good, tt.payment), tt.want)
		})
	}

	// Request-level failures carry no index.
	path := "/batches/" + b.ID + "/payments"
	wantFailures(t, h.do("POST", path, a.token, `{"payments":[`+good+`]}`), failure{"ClearExisting", "", nil})
	wantFailures(t, h.do("POST", path, a.token, `{"clearExisting":false,"payments":[]}`), failure{"Payments", "", nil})
	wantFailures(t, h.do("POST", path, a.token, `{"clearExisting":false}`), failure{"Payments", "", nil})
	wantFailures(t, h.do("POST", path, a.token, `{}`), failure{"ClearExisting", "", nil}, failure{"Payments", "", nil})
	wantFailures(t, h.do("POST", path, a.token, `{"clearExisting":"true","payments":[`+good+`]}`), failure{"ClearExisting", "true", nil})
	wantFailures(t, h.do("POST", path, a.token, `{"clearExisting":false,"payments":[{"amount":01}]}`), failure{"Body", "", nil})
	wantFailures(t, h.do("POST", path, a.token, `{"clearExisting":false,"payments":[`+good+`]}]`), failure{"Body", "", nil})

	// All failures of a request in one array, in order, with their index.
	wantFailures(t, h.addPayments(a, b.ID, false,
		good,
		`{"msisdn":"0712","amount":1.001,"externalId":"dup"}`,
		good,
		`{"msisdn":"`+member+`","externalId":"dup"}`,
	),
		failure{"Msisdn", "0712", at(1)}, failure{"Amount", "1.001", at(1)},
		failure{"Amount", "", at(3)}, failure{"ExternalId", "dup", at(3)},
	)

	// Nothing was stored by any of it.
	if got := ok[[]Payment](t, h.do("GET", path, a.token, nil), 200); len(got) != 0 {
		t.Errorf("stored after failures: %+v", got)
	}
	if got := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200); got.Summary.PaymentsCount != 0 {
		t.Errorf("summary after failures: %+v", got.Summary)
	}

	// The limits that do pass: 1, 1000000, 2 decimals, 100-character names.
	added := ok[Batch](t, h.addPayments(a, b.ID, false,
		pay(member, "1"), pay(member, "1000000"), pay(member, "2.5"),
		`{"msisdn":"`+member+`","amount":1.05,"firstname":"`+strings.Repeat("é", 100)+`"}`), 200)
	var amounts []string
	for _, p := range added.Payments {
		amounts = append(amounts, p.Amount.String())
	}
	if diff := cmp.Diff([]string{"1.00", "1000000.00", "2.50", "1.05"}, amounts); diff != "" {
		t.Errorf("amounts (-want +got):\n%s", diff)
	}
	if added.Summary.PaymentsAmount != "1000004.55" || added.Summary.PaymentsCount != 4 {
		t.Errorf("summary %+v", added.Summary)
	}
}

// TestE2EAddPayments: what a good request stores and answers.
func TestE2EAddPayments(t *testing.T) { eachStore(t, testE2EAddPayments) }

func testE2EAddPayments(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "")
	if r := h.register(member, false); r.status != 201 {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	b := h.createBatch(a, "November")
	h.clock.Advance(time.Minute)
	now := h.clock.Now()
	r := h.addPayments(a, b.ID, false,
		`{"msisdn":"`+member+`","amount":150.00,"firstname":"Amina","lastname":"Odhiambo","externalId":"inv-1"}`,
		// Referrals are disabled for Acme: the fields are ignored, even invalid ones.
		`{"msisdn":"`+nonMember+`","amount":75.5,"referralAmount":"junk","referralMsisdn":"0"}`,
	)
	got := ok[Batch](t, r, 200)
	yes, no := true, false
	want := Batch{
		ID: b.ID, Name: "November", AccountID: a.Accounts[0].ID, StatusCode: "DRAFT", CreatedAt: b.CreatedAt,
		Summary: &Summary{PaymentsAmount: "225.50", PaymentsCount: 2, ReferralsAmount: "0.00", SettledAmount: "0.00",
			CancelledAmount: "0.00", PendingAmount: "0.00"},
		Payments: []Payment{
			{BatchID: b.ID, Msisdn: member, Amount: "150.00", Firstname: "Amina", Lastname: "Odhiambo", ExternalID: "inv-1", StatusCode: "DRAFT", IsMember: &yes},
			{BatchID: b.ID, Msisdn: nonMember, Amount: "75.50", StatusCode: "DRAFT", IsMember: &no},
		},
	}
	ignore := cmpopts.IgnoreFields(Payment{}, "ID", "CreatedAt")
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("added (-want +got):\n%s", diff)
	}
	for _, p := range got.Payments {
		wantTime(t, "createdAt", p.CreatedAt, now)
	}
	// A DRAFT payment writes no settledAt, submittedAt or referral member.
	var raw struct{ Payments []json.RawMessage }
	if err := json.Unmarshal(r.body, &raw); err != nil {
		t.Fatal(err)
	}
	for i, want := range [][]string{
		{"amount", "batchId", "createdAt", "externalId", "firstname", "id", "isMember", "lastname", "msisdn", "statusCode"},
		{"amount", "batchId", "createdAt", "id", "isMember", "msisdn", "statusCode"},
	} {
		if diff := cmp.Diff(want, keysOf(t, raw.Payments[i])); diff != "" {
			t.Errorf("payment %d members (-want +got):\n%s", i, diff)
		}
	}

	// GET payments, GET payment: the same, in the order added.
	list := ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200)
	if diff := cmp.Diff(got.Payments, list); diff != "" {
		t.Errorf("listed (-added +listed):\n%s", diff)
	}
	if diff := cmp.Diff(list[1], ok[Payment](t, h.do("GET", "/payments/"+list[1].ID, a.token, nil), 200)); diff != "" {
		t.Errorf("GET payment (-listed +got):\n%s", diff)
	}
	// The batch read has no payments member.
	if r := h.do("GET", "/batches/"+b.ID, a.token, nil); strings.Contains(string(r.body), `"payments"`) {
		t.Errorf("GET batch writes payments: %s", r.body)
	}

	// Same msisdn twice in a batch is fine (docs/api.md section S1.9).
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "1"), pay(member, "1")), 200)

	// DELETE: a DRAFT payment of a DRAFT batch becomes DELETED; it leaves the summary.
	del := ok[Payment](t, h.do("DELETE", "/payments/"+list[1].ID, a.token, nil), 200)
	if del.StatusCode != "DELETED" || del.ID != list[1].ID {
		t.Errorf("deleted %+v", del)
	}
	problem(t, h.do("DELETE", "/payments/"+list[1].ID, a.token, nil), 409, "invalid_state")
	sum := ok[Batch](t, h.do("GET", "/batches/"+b.ID, a.token, nil), 200).Summary
	if sum.PaymentsAmount != "152.00" || sum.PaymentsCount != 3 {
		t.Errorf("summary after delete %+v", sum)
	}

	// Paging and filtering payments; bad values are 400 arrays.
	ids := func(q string) []string {
		var out []string
		for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments"+q, a.token, nil), 200) {
			out = append(out, p.Msisdn+":"+p.StatusCode)
		}
		return out
	}
	for q, want := range map[string][]string{
		"?statusCode=DELETED":      {nonMember + ":DELETED"},
		"?statusCode=DRAFT&skip=1": {member + ":DRAFT", member + ":DRAFT"},
		"?skip=1&take=2":           {nonMember + ":DELETED", member + ":DRAFT"},
		"?statusCode=SETTLED":      nil,
	} {
		if diff := cmp.Diff(want, ids(q)); diff != "" {
			t.Errorf("payments%s (-want +got):\n%s", q, diff)
		}
	}
	wantFailures(t, h.do("GET", "/batches/"+b.ID+"/payments?statusCode=OPEN&take=0", a.token, nil),
		failure{"Take", "0", nil}, failure{"StatusCode", "OPEN", nil})
}

// TestE2EExternalIDs: unique among the organisation's non-deleted payments,
// within the request too; freed by delete and by clearExisting.
func TestE2EExternalIDs(t *testing.T) { eachStore(t, testE2EExternalIDs) }

func testE2EExternalIDs(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("Acme", false, "")
	b1, b2 := h.createBatch(a, "one"), h.createBatch(a, "two")
	withExt := func(ext string) string { return `{"msisdn":"` + member + `","amount":10,"externalId":"` + ext + `"}` }

	wantFailures(t, h.addPayments(a, b1.ID, false, withExt("e-1"), withExt("e-2"), withExt("e-1")), failure{"ExternalId", "e-1", at(2)})
	added := ok[Batch](t, h.addPayments(a, b1.ID, false, withExt("e-1"), withExt("e-2")), 200)
	// Against stored payments: in the same batch and in another.
	wantFailures(t, h.addPayments(a, b1.ID, false, withExt("e-3"), withExt("e-1")), failure{"ExternalId", "e-1", at(1)})
	wantFailures(t, h.addPayments(a, b2.ID, false, withExt("e-2")), failure{"ExternalId", "e-2", at(0)})
	// A request that fails its own checks reports the stored clashes too.
	wantFailures(t, h.addPayments(a, b2.ID, false, `{"msisdn":"0712","amount":10,"externalId":"e-9"}`, withExt("e-1")),
		failure{"Msisdn", "0712", at(0)}, failure{"ExternalId", "e-1", at(1)})
	// Another organisation's external ids are its own.
	other := h.createOrg("Other", false, "")
	ok[Batch](t, h.addPayments(other, h.createBatch(other, "x").ID, false, withExt("e-1")), 200)

	// Deleting frees one.
	ok[Payment](t, h.do("DELETE", "/payments/"+added.Payments[1].ID, a.token, nil), 200)
	ok[Batch](t, h.addPayments(a, b2.ID, false, withExt("e-2")), 200)

	// clearExisting frees the cleared payments' ids and replaces the list.
	wantFailures(t, h.addPayments(a, b1.ID, false, withExt("e-1")), failure{"ExternalId", "e-1", at(0)})
	cleared := ok[Batch](t, h.addPayments(a, b1.ID, true, withExt("e-1"), withExt("e-4")), 200)
	if cleared.Summary.PaymentsCount != 2 || len(cleared.Payments) != 2 {
		t.Errorf("after clearExisting: %+v, %d payments", cleared.Summary, len(cleared.Payments))
	}
	var statuses []string
	for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+b1.ID+"/payments", a.token, nil), 200) {
		statuses = append(statuses, p.ExternalID+":"+p.StatusCode)
	}
	// e-2 was deleted before the clear; the clear deleted e-1; then e-1 and e-4 came in.
	if diff := cmp.Diff([]string{"e-1:DELETED", "e-2:DELETED", "e-1:DRAFT", "e-4:DRAFT"}, statuses); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
}

// TestE2EReferrals: validated, stored and returned only when the
// organisation has referrals enabled (docs/api.md section 4.1).
func TestE2EReferrals(t *testing.T) { eachStore(t, testE2EReferrals) }

func testE2EReferrals(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	r := h.createOrg("Referrer", true, "")
	b := h.createBatch(r, "with referrals")
	ref := func(amount, msisdn string) string {
		s := `{"msisdn":"` + member + `","amount":10`
		if amount != "" {
			s += `,"referralAmount":` + amount
		}
		if msisdn != "" {
			s += `,"referralMsisdn":"` + msisdn + `"`
		}
		return s + "}"
	}
	wantFailures(t, h.addPayments(r, b.ID, false,
		ref("1.001", nonMember), ref("5", ""), ref("", nonMember), ref("0.5", nonMember), ref("5", "0712"), ref(`"5"`, nonMember)),
		failure{"ReferralAmount", "1.001", at(0)},
		failure{"ReferralMsisdn", "", at(1)},
		failure{"ReferralAmount", "", at(2)},
		failure{"ReferralAmount", "0.5", at(3)},
		failure{"ReferralMsisdn", "0712", at(4)},
		failure{"ReferralAmount", "5", at(5)},
	)
	got := ok[Batch](t, h.addPayments(r, b.ID, false, ref("5", nonMember), ref("null", "")), 200)
	p := got.Payments[0]
	if p.ReferralAmount != "5.00" || p.ReferralMsisdn != nonMember || p.ReferralStatusCode != "DRAFT" {
		t.Errorf("referral payment %+v", p)
	}
	if q := got.Payments[1]; q.ReferralAmount != "" || q.ReferralMsisdn != "" || q.ReferralStatusCode != "" {
		t.Errorf("null referralAmount made a referral: %+v", q)
	}
	if got.Summary.ReferralsAmount != "5.00" || got.Summary.PaymentsAmount != "20.00" {
		t.Errorf("summary %+v", got.Summary)
	}

	// Disabled again: ignored, not stored, not returned.
	ok[Organisation](t, h.do("PUT", "/admin/organisations/"+r.ID+"/settings", adminToken, `{"referralsEnabled":false}`), 200)
	got = ok[Batch](t, h.addPayments(r, b.ID, false, ref("1.001", "0712")), 200)
	if q := got.Payments[0]; q.ReferralAmount != "" || q.ReferralMsisdn != "" || q.ReferralStatusCode != "" {
		t.Errorf("disabled referral stored: %+v", q)
	}
}

// TestE2EHundredThousandPayments: docs/api.md section 4.1's request limit goes through
// in one request; one more is a 400 on Payments.
func TestE2EHundredThousandPayments(t *testing.T) { eachStore(t, testE2EHundredThousandPayments) }

func testE2EHundredThousandPayments(t *testing.T, store opener) {
	if testing.Short() {
		t.Skip("large request")
	}
	testenv.SkipUnlessLong(t) // a request of 100,000 payments
	h := startDefaultOn(t, store)
	a := h.createOrg("Bulk", false, "")
	b := h.createBatch(a, "bulk")
	var body strings.Builder
	body.WriteString(`{"clearExisting":false,"payments":[`)
	for i := range 100_001 {
		if i > 0 {
			body.WriteByte(',')
		}
		fmt.Fprintf(&body, `{"msisdn":"%s","amount":%d.%02d,"externalId":"x%d"}`, member, 1+i%500, i%100, i)
	}
	body.WriteString(`]}`)
	all := body.String()
	wantFailures(t, h.do("POST", "/batches/"+b.ID+"/payments", a.token, all), failure{"Payments", "100001", nil})

	limit := all[:strings.LastIndex(all, `,{"msisdn"`)] + `]}`
	start := time.Now()
	r := h.do("POST", "/batches/"+b.ID+"/payments", a.token, limit)
	took := time.Since(start)
	got := ok[Batch](t, r, 200)
	t.Logf("100,000 payments (%d bytes in, %d out) added in %v", len(limit), len(r.body), took)
	if got.Summary.PaymentsCount != 100_000 || len(got.Payments) != 100_000 {
		t.Errorf("count %d, %d payments", got.Summary.PaymentsCount, len(got.Payments))
	}
}

// TestE2EWrongTypes: a value of the wrong JSON type is a failure of its
// field, reported in the one array with every other failure of the request
// (docs/api.md section 2); referral fields are typed only when referrals are
// enabled (docs/api.md section 4.1).
func TestE2EWrongTypes(t *testing.T) { eachStore(t, testE2EWrongTypes) }

func testE2EWrongTypes(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	plain, referrer := h.createOrg("Plain", false, ""), h.createOrg("Referrer", true, "")
	pb, rb := h.createBatch(plain, "plain"), h.createBatch(referrer, "referrals")
	withRef := `{"msisdn":"` + member + `","amount":10,"referralAmount":5,"referralMsisdn":5}`
	for _, tt := range []struct {
		name string
		o    org
		path string
		body string
		want []failure // nil: 200
	}{
		{"payments: wrong types with the other checks", plain, "/batches/" + pb.ID + "/payments",
			`{"clearExisting":false,"payments":[{"msisdn":5,"amount":5,"firstname":7},{"msisdn":"0712","amount":1.001}]}`,
			[]failure{{"Msisdn", "5", at(0)}, {"Firstname", "7", at(0)}, {"Msisdn", "0712", at(1)}, {"Amount", "1.001", at(1)}}},
		{"payments: a payment not an object, with the others' failures", plain, "/batches/" + pb.ID + "/payments",
			`{"clearExisting":false,"payments":[[1],{"msisdn":"` + member + `","amount":0}]}`,
			[]failure{{"Payments", "array", at(0)}, {"Amount", "0", at(1)}}},
		{"batch: every wrong type", plain, "/batches", `{"name":5,"externalId":true}`,
			[]failure{{"Name", "5", nil}, {"ExternalId", "true", nil}}},
		{"batch: a wrong type with the other checks", plain, "/batches", `{"name":5,"externalId":"` + strings.Repeat("x", 101) + `"}`,
			[]failure{{"Name", "5", nil}, {"ExternalId", strings.Repeat("x", 101), nil}}},
		{"payments: a top-level wrong type with the payments' checks", plain, "/batches/" + pb.ID + "/payments",
			`{"clearExisting":"no","payments":[{"msisdn":"0712","amount":1.001},{"msisdn":7,"amount":5}]}`,
			[]failure{{"ClearExisting", "no", nil}, {"Msisdn", "0712", at(0)}, {"Amount", "1.001", at(0)}, {"Msisdn", "7", at(1)}}},
		{"referrals disabled: a wrong type ignored", plain, "/batches/" + pb.ID + "/payments",
			`{"clearExisting":false,"payments":[` + withRef + `]}`, nil},
		{"referrals enabled: a wrong type reported", referrer, "/batches/" + rb.ID + "/payments",
			`{"clearExisting":false,"payments":[` + withRef + `,{"msisdn":"` + member + `","amount":10,"referralAmount":5,"referralMsisdn":"18002345678"}]}`,
			[]failure{{"ReferralMsisdn", "5", at(0)}, {"ReferralMsisdn", "18002345678", at(1)}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := h.do("POST", tt.path, tt.o.token, tt.body)
			if tt.want == nil {
				ok[Batch](t, r, 200)
				return
			}
			wantFailures(t, r, tt.want...)
		})
	}

	// GET /members/{msisdn}/exists: numbers that are not mobile or fixed lines.
	for _, msisdn := range []string{"18002345678", "449090000000", "15005550006"} {
		wantFailures(t, h.do("GET", "/members/"+msisdn+"/exists", plain.token, nil), failure{"Msisdn", msisdn, nil})
	}
}
