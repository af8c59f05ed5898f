package httpapi_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/disburse/disburse"
)

// TestPaymentFieldPlaces: every field of a payment's request, found by
// reflection over disburse.PaymentInput, is read from the body, checked,
// stored and written in the answers. A new payment field touches three
// places, and this test fails until it has reached each:
//
//  1. disburse.PaymentInput (payment_input.go): the field and its json
//     tag, by which decode (httpapi/decode_fields.go) reads it;
//  2. validatePayments (payment_input.go): its checks, and its copy into
//     disburse.Payment (model.go), which the store keeps
//     (sqlstore/payments.go and a migration in both engines);
//  3. paymentJSON and toPayment (httpapi/json_types.go): its answer, which
//     appendPayment (httpapi/payment_json.go) writes field by field from
//     paymentJSON's own list.
//
// fieldSamples below is the test's own knowledge of the field: a value
// its checks take and one they refuse.
func TestPaymentFieldPlaces(t *testing.T) { eachStore(t, testPaymentFieldPlaces) }

// fieldSamples is, for each JSON name of a payment's field, a value (as
// JSON text) its checks take and one they refuse.
var fieldSamples = map[string]struct{ good, bad string }{
	"msisdn":         {`"254712345678"`, `"0712"`},
	"amount":         {`12.34`, `1.001`},
	"firstname":      {`"Amina"`, `"` + strings.Repeat("x", 101) + `"`},
	"lastname":       {`"Bakari"`, `"a\u0000b"`},
	"externalId":     {`"inv-1"`, `"` + strings.Repeat("x", 101) + `"`},
	"referralAmount": {`2.50`, `0.5`},
	"referralMsisdn": {`"447911123456"`, `"18002345678"`},
}

func testPaymentFieldPlaces(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Fields", true, "")
	b := h.createBatch(o, "fields")

	var names []string
	typ := reflect.TypeFor[disburse.PaymentInput]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if _, ok := fieldSamples[name]; !ok {
			t.Fatalf("PaymentInput.%s (%q) has no sample in fieldSamples: add one, and the field to the places above", typ.Field(i).Name, name)
		}
		names = append(names, name)
	}
	payment := func(with map[string]string) string {
		var members []string
		for _, n := range names {
			v := fieldSamples[n].good
			if w, ok := with[n]; ok {
				v = w
			}
			members = append(members, `"`+n+`":`+v)
		}
		return "{" + strings.Join(members, ",") + "}"
	}

	// Checked: a value its rule refuses, and a value of the wrong type,
	// each fail on that field alone (before any payment is stored, whose
	// external id would clash).
	for _, n := range names {
		field := strings.ToUpper(n[:1]) + n[1:]
		wrongType := `5`
		if !strings.HasPrefix(fieldSamples[n].good, `"`) {
			wrongType = `"5"`
		}
		for _, v := range []string{fieldSamples[n].bad, wrongType} {
			fs := failures(t, h.addPayments(o, b.ID, false, payment(map[string]string{n: v})))
			if len(fs) != 1 || fs[0].FieldName != field || fs[0].Index == nil || *fs[0].Index != 0 {
				t.Errorf("%s %s: failures %+v, want one on %s at index 0", n, v, fs, field)
			}
		}
	}

	// Read, checked, stored and answered: each field comes back as sent,
	// from the add (appendPayment) and from a read of the stored payment
	// (json.Marshal of paymentJSON).
	add := h.addPayments(o, b.ID, false, payment(nil))
	added := ok[Batch](t, add, 200)
	if len(added.Payments) != 1 {
		t.Fatalf("added %d payments", len(added.Payments))
	}
	for _, r := range []response{
		add,
		h.do("GET", "/batches/"+b.ID+"/payments", o.token, nil),
		h.do("GET", "/payments/"+added.Payments[0].ID, o.token, nil),
	} {
		got := answered(t, r.body)
		for _, n := range names {
			if want := fieldSamples[n].good; string(got[n]) != want {
				t.Errorf("%s: answered %s = %s, want %s as sent", r.body, n, got[n], want)
			}
		}
	}
}

// answered is the one payment of an answer (a payment, a list, or a
// batch with its payments), its members as JSON text.
func answered(t *testing.T, body []byte) map[string]json.RawMessage {
	t.Helper()
	var list []map[string]json.RawMessage
	var one map[string]json.RawMessage
	switch {
	case json.Unmarshal(body, &list) == nil:
	case json.Unmarshal(body, &one) == nil && one["payments"] != nil:
		if err := json.Unmarshal(one["payments"], &list); err != nil {
			t.Fatalf("answer %s: %v", body, err)
		}
	case one != nil:
		return one
	default:
		t.Fatalf("answer %s is not JSON", body)
	}
	if len(list) != 1 {
		t.Fatalf("answer %s: %d payments, want 1", body, len(list))
	}
	return list[0]
}
