package disburse

import (
	"errors"
	"strings"
	"testing"

	"github.com/disburse/disburse/internal/text"
	"github.com/google/go-cmp/cmp"
)

// failure is a FieldError without its message, which is free text.
type failure struct {
	Field, Value string
	Index        int // -1: request level
}

func failuresOf(t *testing.T, err error) []failure {
	t.Helper()
	if err == nil {
		return nil
	}
	var e *Error
	if !errors.As(err, &e) || e.Code != CodeInvalid {
		t.Fatalf("error %v is not a validation error", err)
	}
	var out []failure
	for _, f := range e.Fields {
		if f.ErrorMessage == "" {
			t.Errorf("failure on %s has no message", f.FieldName)
		}
		i := -1
		if f.Index != nil {
			i = *f.Index
		}
		out = append(out, failure{f.FieldName, f.FieldValue, i})
	}
	return out
}

func TestValidatePayments(t *testing.T) {
	ok := PaymentInput{Msisdn: "254712345678", Amount: "150.00"}
	with := func(change func(*PaymentInput)) PaymentInput {
		p := ok
		change(&p)
		return p
	}
	long := strings.Repeat("é", 101)
	tests := []struct {
		name      string
		in        []PaymentInput
		referrals bool
		want      []failure
	}{
		{"valid", []PaymentInput{ok, ok}, false, nil},
		{"msisdn leading zero", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "0712345678" })}, false, []failure{{"Msisdn", "0712345678", 0}}},
		{"msisdn missing", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "" })}, false, []failure{{"Msisdn", "", 0}}},
		{"msisdn plus", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "+254712345678" })}, false, []failure{{"Msisdn", "+254712345678", 0}}},
		{"amount missing", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "" })}, false, []failure{{"Amount", "", 0}}},
		{"amount below one", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "0.99" })}, false, []failure{{"Amount", "0.99", 0}}},
		{"amount three decimals", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "1.001" })}, false, []failure{{"Amount", "1.001", 0}}},
		{"amount exponent", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "1e2" })}, false, []failure{{"Amount", "1e2", 0}}},
		{"amount string", []PaymentInput{with(func(p *PaymentInput) { p.Amount, p.WrongTypes = "", wrongTypes(wrongType("Amount", "10")) })}, false, []failure{{"Amount", "10", 0}}},
		{"amount negative", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "-5" })}, false, []failure{{"Amount", "-5", 0}}},
		{"amount null", []PaymentInput{with(func(p *PaymentInput) { p.Amount, p.WrongTypes = "", wrongTypes(null("Amount")) })}, false, []failure{{"Amount", "null", 0}}},
		{"amount huge", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "99999999999999999999" })}, false, []failure{{"Amount", "99999999999999999999", 0}}},
		{"amount above max", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "1000000.01" })}, false, []failure{{"Amount", "1000000.01", 0}}},
		{"amount at max", []PaymentInput{with(func(p *PaymentInput) { p.Amount = "1000000" })}, false, nil},
		{"names too long", []PaymentInput{with(func(p *PaymentInput) { p.Firstname, p.Lastname = long, long })}, false, []failure{{"Firstname", long, 0}, {"Lastname", long, 0}}},
		{"names at limit", []PaymentInput{with(func(p *PaymentInput) { p.Firstname = long[2:] })}, false, nil},
		{"external id too long", []PaymentInput{with(func(p *PaymentInput) { p.ExternalID = strings.Repeat("x", 101) })}, false, []failure{{"ExternalId", strings.Repeat("x", 101), 0}}},
		{"external id twice in request", []PaymentInput{with(func(p *PaymentInput) { p.ExternalID = "a" }), ok, with(func(p *PaymentInput) { p.ExternalID = "a" })}, false, []failure{{"ExternalId", "a", 2}}},
		{"every failure reported with its index", []PaymentInput{ok, with(func(p *PaymentInput) { p.Msisdn, p.Amount = "07", "0" }), with(func(p *PaymentInput) { p.Amount = "1.001" })}, false,
			[]failure{{"Msisdn", "07", 1}, {"Amount", "0", 1}, {"Amount", "1.001", 2}}},
		{"referrals disabled: ignored", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount, p.ReferralMsisdn = "1.001", "07" })}, false, nil},
		{"referral valid", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount, p.ReferralMsisdn = "10", "447911123456" })}, true, nil},
		{"referral amount bad", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount, p.ReferralMsisdn = "0.5", "447911123456" })}, true, []failure{{"ReferralAmount", "0.5", 0}}},
		{"referral msisdn missing", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount = "10" })}, true, []failure{{"ReferralMsisdn", "", 0}}},
		{"referral msisdn bad", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount, p.ReferralMsisdn = "10", "0712" })}, true, []failure{{"ReferralMsisdn", "0712", 0}}},
		{"referral msisdn without amount", []PaymentInput{with(func(p *PaymentInput) { p.ReferralMsisdn = "447911123456" })}, true, []failure{{"ReferralAmount", "", 0}}},
		{"referral amount null is no referral", []PaymentInput{with(func(p *PaymentInput) { p.WrongTypes = wrongTypes(null("ReferralAmount")) })}, true, nil},
		{"referral amount null with a referral msisdn", []PaymentInput{with(func(p *PaymentInput) {
			p.ReferralMsisdn, p.WrongTypes = "447911123456", wrongTypes(null("ReferralAmount"))
		})}, true, []failure{{"ReferralAmount", "null", 0}}},
		{"referral amount a string", []PaymentInput{with(func(p *PaymentInput) {
			p.ReferralMsisdn, p.WrongTypes = "447911123456", wrongTypes(wrongType("ReferralAmount", "5"))
		})}, true, []failure{{"ReferralAmount", "5", 0}}},
		{"msisdn toll-free", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "18002345678" })}, false, []failure{{"Msisdn", "18002345678", 0}}},
		{"msisdn premium rate", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "449090000000" })}, false, []failure{{"Msisdn", "449090000000", 0}}},
		{"msisdn personal", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "15005550006" })}, false, []failure{{"Msisdn", "15005550006", 0}}},
		{"msisdn fixed line", []PaymentInput{with(func(p *PaymentInput) { p.Msisdn = "442071234567" })}, false, nil},
		{"referral msisdn toll-free", []PaymentInput{with(func(p *PaymentInput) { p.ReferralAmount, p.ReferralMsisdn = "10", "18002345678" })}, true, []failure{{"ReferralMsisdn", "18002345678", 0}}},
		{"amount an object, by kind", []PaymentInput{with(func(p *PaymentInput) { p.Amount, p.WrongTypes = "", wrongTypes(wrongType("Amount", "object")) })}, false, []failure{{"Amount", "object", 0}}},
		{"amount long, shortened", []PaymentInput{with(func(p *PaymentInput) { p.Amount = Number(strings.Repeat("1", 300)) })}, false, []failure{{"Amount", text.Short(strings.Repeat("1", 300)), 0}}},
		{"wrong types reported with the other fields' checks", []PaymentInput{
			{Amount: "5", WrongTypes: wrongTypes(wrongType("Msisdn", "5"), wrongType("Firstname", "7"))},
			{Msisdn: "0712", Amount: "1.001"},
		}, false, []failure{{"Msisdn", "5", 0}, {"Firstname", "7", 0}, {"Msisdn", "0712", 1}, {"Amount", "1.001", 1}}},
		{"every field's wrong type, in field order", []PaymentInput{with(func(p *PaymentInput) {
			p.WrongTypes = wrongTypes(wrongType("ExternalId", "true"), wrongType("Lastname", "object"), wrongType("Msisdn", "array"))
		})}, false, []failure{{"Msisdn", "array", 0}, {"Lastname", "object", 0}, {"ExternalId", "true", 0}}},
		{"a payment not an object: that alone", []PaymentInput{ok, {WrongTypes: wrongTypes(wrongType("Payments", "5"))}}, false, []failure{{"Payments", "5", 1}}},
		{"referrals disabled: a wrong type ignored too", []PaymentInput{with(func(p *PaymentInput) {
			p.ReferralAmount, p.WrongTypes = "10", wrongTypes(wrongType("ReferralMsisdn", "5"))
		})}, false, nil},
		{"referrals enabled: a wrong type of referralMsisdn", []PaymentInput{with(func(p *PaymentInput) {
			p.ReferralAmount, p.WrongTypes = "10", wrongTypes(wrongType("ReferralMsisdn", "5"))
		})}, true, []failure{{"ReferralMsisdn", "5", 0}}},
		{"referrals enabled: a wrong type of referralMsisdn, no amount", []PaymentInput{with(func(p *PaymentInput) {
			p.WrongTypes = wrongTypes(wrongType("ReferralMsisdn", "5"))
		})}, true, []failure{{"ReferralAmount", "", 0}, {"ReferralMsisdn", "5", 0}}},
	}
	s := NewService(nil)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v Validation
			s.validatePayments(&v, tt.in, tt.referrals)
			if diff := cmp.Diff(tt.want, failuresOf(t, v.Err())); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

// fieldWrong is one field's WrongType.
type fieldWrong struct {
	field Field
	wrong WrongType
}

// wrongType is a WrongType as the HTTP decoder makes them.
func wrongType(field Field, value string) fieldWrong {
	return fieldWrong{field, WrongType{Value: value, Message: jsonName(string(field)) + " must be a string"}}
}

// null is a null where a number is due.
func null(field Field) fieldWrong {
	return fieldWrong{field, WrongType{Value: "null", Message: jsonName(string(field)) + " must be a number", Null: true}}
}

func wrongTypes(ws ...fieldWrong) WrongTypes {
	out := WrongTypes{}
	for _, w := range ws {
		out[w.field] = w.wrong
	}
	return out
}

func TestValidatePaymentsBuildsPayments(t *testing.T) {
	in := []PaymentInput{
		{Msisdn: "254712345678", Amount: "150.5", Firstname: "Ann", ExternalID: "x1", ReferralAmount: "10", ReferralMsisdn: "447911123456"},
	}
	s := NewService(nil)
	var v Validation
	got, _ := s.validatePayments(&v, in, true)
	want := []Payment{{Msisdn: "254712345678", Amount: 15050, Firstname: "Ann", ExternalID: "x1", Status: PaymentDraft,
		ReferralAmount: 1000, ReferralMsisdn: "447911123456", ReferralStatus: PaymentDraft}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
	// With referrals disabled the fields are not stored.
	got, _ = s.validatePayments(&v, in, false)
	want[0].ReferralAmount, want[0].ReferralMsisdn, want[0].ReferralStatus = 0, "", ""
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("payments without referrals (-want +got):\n%s", diff)
	}
}

func TestSummaryChange(t *testing.T) {
	p := Payment{Amount: 1000, Status: PaymentDraft, ReferralAmount: 200, ReferralStatus: PaymentDraft}
	var s Summary
	s.Change(Payment{Status: PaymentDeleted}, p)
	want := Summary{PaymentsAmount: 1000, PaymentsCount: 1, ReferralsAmount: 200, DraftAmount: 1000, DraftCount: 1}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("after add (-want +got):\n%s", diff)
	}
	q := p
	q.Status, q.ReferralStatus = PaymentSettled, PaymentPending
	s.Change(p, q)
	want = Summary{PaymentsAmount: 1000, PaymentsCount: 1, ReferralsAmount: 200, SettledAmount: 1000, SettledCount: 1, HeldAmount: 200}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Fatalf("after submit (-want +got):\n%s", diff)
	}
	if s.nothingPending() {
		t.Error("a pending referral leg must keep the batch open")
	}
	r := q
	r.ReferralStatus = PaymentCancelled
	s.Change(q, r)
	if !s.nothingPending() {
		t.Error("nothing is pending once the referral is reversed")
	}
}

func TestBatchTransitions(t *testing.T) {
	want := map[BatchStatus][]Action{
		BatchDraft:     {ActionUpdate, ActionAddPayments, ActionDeletePayment, ActionSubmit, ActionCancel},
		BatchOpen:      {ActionCancel},
		BatchClosed:    nil,
		BatchCancelled: nil,
	}
	all := []Action{ActionUpdate, ActionAddPayments, ActionDeletePayment, ActionSubmit, ActionCancel}
	for _, st := range BatchStatuses() {
		var got []Action
		for _, a := range all {
			if st.Allows(a) {
				got = append(got, a)
			}
		}
		if diff := cmp.Diff(want[st], got); diff != "" {
			t.Errorf("%s allows (-want +got):\n%s", st, diff)
		}
	}
}
