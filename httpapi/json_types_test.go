package httpapi

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/disburse/disburse"
)

func TestDateTimeFormat(t *testing.T) {
	nairobi := time.FixedZone("EAT", 3*60*60)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2026, 11, 22, 10, 15, 30, 123456700, time.UTC), `"2026-11-22T10:15:30.1234567"`},
		{time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC), `"2026-11-22T10:15:30.0000000"`},
		{time.Date(2026, 11, 22, 10, 15, 30, 123456789, time.UTC), `"2026-11-22T10:15:30.1234567"`}, // truncated, not rounded
		{time.Date(2026, 11, 22, 13, 15, 30, 5000, nairobi), `"2026-11-22T10:15:30.0000050"`},       // always UTC, no offset
		{time.Date(2027, 1, 1, 2, 0, 0, 0, nairobi), `"2026-12-31T23:00:00.0000000"`},
	}
	for _, tt := range tests {
		got, err := json.Marshal(dateTime(tt.in))
		if err != nil || string(got) != tt.want {
			t.Errorf("%v: got %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
}

// TestAbsentValuesOmitted: a DRAFT payment has no settledAt, no referral and
// no optional names; isMember and the amounts are always there, with two decimals.
func TestAbsentValuesOmitted(t *testing.T) {
	created := time.Date(2026, 11, 22, 10, 15, 30, 0, time.UTC)
	got, err := json.Marshal(toPayment(disburse.Payment{
		ID: "p", BatchID: "b", Msisdn: "254712345678", Amount: 15000, Status: disburse.PaymentDraft, CreatedAt: created,
	}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"p","batchId":"b","msisdn":"254712345678","amount":150.00,"statusCode":"DRAFT","isMember":false,"createdAt":"2026-11-22T10:15:30.0000000"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("payment (-want +got):\n%s", diff)
	}

	got, err = json.Marshal(toPayment(disburse.Payment{
		ID: "p", BatchID: "b", Msisdn: "254712345678", Amount: 5, Status: disburse.PaymentSettled, IsMember: true,
		Firstname: "A", Lastname: "B", ExternalID: "e", CreatedAt: created, SubmittedAt: created, SettledAt: created,
		ReferralAmount: 100, ReferralMsisdn: "447911123456", ReferralStatus: disburse.PaymentPending, ReversalDueAt: created,
	}))
	if err != nil {
		t.Fatal(err)
	}
	want = `{"id":"p","batchId":"b","msisdn":"254712345678","amount":0.05,"firstname":"A","lastname":"B","externalId":"e",` +
		`"statusCode":"SETTLED","settledAt":"2026-11-22T10:15:30.0000000","isMember":true,"referralAmount":1.00,` +
		`"referralMsisdn":"447911123456","referralStatusCode":"PENDING","createdAt":"2026-11-22T10:15:30.0000000",` +
		`"submittedAt":"2026-11-22T10:15:30.0000000","reversalDueAt":"2026-11-22T10:15:30.0000000"}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("payment (-want +got):\n%s", diff)
	}
}

// TestBatchSummaryAlwaysComplete: zero totals are written, payments only when set.
func TestBatchSummaryAlwaysComplete(t *testing.T) {
	got, err := json.Marshal(toBatch(disburse.Batch{ID: "b", Name: "n", AccountID: "a", Status: disburse.BatchDraft}))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":"b","name":"n","accountId":"a","statusCode":"DRAFT","summary":{"paymentsAmount":0.00,"paymentsCount":0,` +
		`"referralsAmount":0.00,"settledAmount":0.00,"settledCount":0,"cancelledAmount":0.00,"cancelledCount":0,` +
		`"pendingAmount":0.00,"pendingCount":0}}`
	if diff := cmp.Diff(want, string(got)); diff != "" {
		t.Errorf("batch (-want +got):\n%s", diff)
	}
}

func TestAmountsOut(t *testing.T) {
	for m, want := range map[disburse.Money]string{
		0: "0.00", 1: "0.01", 10: "0.10", 100: "1.00", 15050: "150.50", 100_000_000: "1000000.00", -250: "-2.50",
	} {
		got, err := json.Marshal(accountJSON{Balance: m})
		if err != nil {
			t.Fatal(err)
		}
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(got, &raw); err != nil {
			t.Fatal(err)
		}
		if string(raw["balance"]) != want {
			t.Errorf("%d cents: balance %s, want %s", m, raw["balance"], want)
		}
	}
}

// TestStatementBalance sums the wallets, and is 0.00 with an empty entries array for none.
func TestStatementBalance(t *testing.T) {
	got, _ := json.Marshal(toStatement(disburse.Statement{Msisdn: "254712345678"}))
	if want := `{"msisdn":"254712345678","balance":0.00,"entries":[]}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	st := toStatement(disburse.Statement{Wallets: []disburse.Account{{Balance: 150}, {Balance: 250}}})
	if st.Balance != 400 {
		t.Errorf("balance = %v, want 4.00", st.Balance)
	}
}

// TestAppendDateTimeMatchesFormat: the hand-written digits are
// time.AppendFormat's, for any instant in any zone, years of more or
// fewer than four digits included.
func TestAppendDateTimeMatchesFormat(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		sec := rapid.Int64Range(-70_000_000_000, 400_000_000_000).Draw(t, "sec") // years about -250 to 14,600
		nsec := rapid.Int64Range(0, 999_999_999).Draw(t, "nsec")
		zone := time.FixedZone("z", rapid.IntRange(-14*3600, 14*3600).Draw(t, "offset"))
		in := time.Unix(sec, nsec).In(zone)
		want := `"` + in.UTC().Format(dateTimeLayout) + `"`
		if got := string(appendDateTime(nil, dateTime(in))); got != want {
			t.Fatalf("%v: got %s, want %s", in, got, want)
		}
	})
}
