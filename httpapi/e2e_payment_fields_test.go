package httpapi_test

import (
	"encoding/json"
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/disburse/disburse"
)

// TestPaymentFieldPlaces: every field of a payment's request, found by
// reflection over disburse.PaymentInput, is read from the body, checked,
// stored and written in the answers, on both stores. A new payment field
// is hand-written in five places, and this test fails until it has
// reached each (docs/code-map.md, "Adding a payment field"):
//
//  1. disburse.PaymentInput (payment_input.go): the field and its json
//     tag, by which decode (httpapi/decode_fields.go) reads it, and
//     validatePayments: its checks and its copy into disburse.Payment;
//  2. disburse.Payment (model.go), whose fields sqlstore stores
//     (sqlstore/payments_gen.go, generated);
//  3. a migration in postgres/migrations and 4. in sqlite/migrations;
//  5. openapi.yaml: the PaymentInput schema, by which this test samples
//     the field, and the Payment schema, from which paymentJSON and its
//     writer are generated (httpapi/payment_json_gen.go).
//
// Then go generate ./... writes the generated files.
func TestPaymentFieldPlaces(t *testing.T) { eachStore(t, testPaymentFieldPlaces) }

// fieldSamples is, for the JSON names of the payment's fields whose rules
// are more than text of a length, a value (as JSON text) their checks
// take and values they refuse. Every other field is optional text of at
// most its maxLength in openapi.yaml's PaymentInput schema (textSample).
var fieldSamples = map[string]sample{
	"msisdn":         {`"254712345678"`, []string{`"0712"`}},
	"amount":         {`12.34`, []string{`1.001`}},
	"referralAmount": {`2.50`, []string{`0.5`}},
	"referralMsisdn": {`"447911123456"`, []string{`"18002345678"`}},
}

type sample struct {
	good string
	bad  []string
}

// textSample is the sample of a text field with the schema's maxLength
// (and its first example, if it gives one): its example, or a value of its
// whole length, is taken; one character more, or a NUL, is refused.
func textSample(t *testing.T, name string) sample {
	t.Helper()
	spec, err := apiDocument()
	if err != nil {
		t.Fatal(err)
	}
	ref := spec.doc.Components.Schemas["PaymentInput"].Value.Properties[name]
	if ref == nil || ref.Value.MaxLength == nil || !ref.Value.Type.Is("string") {
		t.Fatalf("PaymentInput's %q: no string schema with a maxLength in openapi.yaml's PaymentInput, and no sample in fieldSamples: add one", name)
	}
	n := int(*ref.Value.MaxLength)
	good := strings.Repeat("x", n)
	if len(ref.Value.Examples) > 0 {
		if e, ok := ref.Value.Examples[0].(string); ok {
			good = e
		}
	}
	return sample{`"` + good + `"`, []string{`"` + strings.Repeat("x", n+1) + `"`, `"a\u0000b"`}}
}

func testPaymentFieldPlaces(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Fields", true, "")
	b := h.createBatch(o, "fields")

	var names []string
	samples := maps.Clone(fieldSamples)
	typ := reflect.TypeFor[disburse.PaymentInput]()
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if _, ok := samples[name]; !ok {
			samples[name] = textSample(t, name)
		}
		names = append(names, name)
	}
	payment := func(with map[string]string) string {
		var members []string
		for _, n := range names {
			v := samples[n].good
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
		if !strings.HasPrefix(samples[n].good, `"`) {
			wrongType = `"5"`
		}
		for _, v := range append(samples[n].bad, wrongType) {
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
			if want := samples[n].good; string(got[n]) != want {
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
