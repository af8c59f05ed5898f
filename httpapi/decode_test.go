package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// decodeBody runs decode on body as a handler would see it: capped at limit.
func decodeBody(body string, limit int64, dst any) error {
	r := httptest.NewRequest("POST", "/x", strings.NewReader(body))
	r.Body = http.MaxBytesReader(httptest.NewRecorder(), r.Body, limit)
	return decode(r, dst)
}

// passedOn is, for a body whose wrong types go on to the domain, those
// wrong types as the invalid error the domain would return with them (the
// top level's, then each payment's but for the referral fields', as for
// an organisation without referrals); nil when there are none.
func passedOn(dst any) error {
	var fields []disburse.FieldError
	add := func(v any, w disburse.WrongTypes, index *int) {
		for _, f := range planOf(reflect.TypeOf(v)).fields {
			if t, ok := w[f.field]; ok && !strings.HasPrefix(f.name, "referral") {
				fields = append(fields, disburse.FieldError{FieldName: string(f.field), FieldValue: t.Value, ErrorMessage: t.Message, Index: index})
			}
		}
	}
	switch d := dst.(type) {
	case *settingsRequest: // its handler reports them, but a null approvalThreshold
		_, err := d.settings()
		return err
	case *disburse.BatchInput:
		add(*d, d.WrongTypes, nil)
	case *disburse.AddPaymentsInput:
		add(*d, d.WrongTypes, nil)
		for i, p := range d.Payments {
			if t, ok := p.WrongTypes[disburse.Field("Payments")]; ok {
				fields = append(fields, disburse.FieldError{FieldName: "Payments", FieldValue: t.Value, ErrorMessage: t.Message, Index: &i})
			}
			add(p, p.WrongTypes, &i)
		}
	}
	if len(fields) == 0 {
		return nil
	}
	return &disburse.Error{Code: disburse.CodeInvalid, Fields: fields}
}

// failure is a FieldError without its message, which tests check is set.
type failure struct {
	FieldName, FieldValue string
	Index                 *int
}

func failuresOf(t *testing.T, err error) []failure {
	t.Helper()
	e, ok := err.(*disburse.Error)
	if !ok || e.Code != disburse.CodeInvalid {
		t.Fatalf("err = %v, want an invalid *disburse.Error", err)
	}
	var out []failure
	for _, f := range e.Fields {
		if f.ErrorMessage == "" {
			t.Errorf("failure %+v has no message", f)
		}
		out = append(out, failure{f.FieldName, f.FieldValue, f.Index})
	}
	return out
}

func TestDecodeFailures(t *testing.T) {
	tests := []struct {
		name string
		body string
		dst  func() any
		want []failure
	}{
		{"empty body", ``, newBatch, []failure{{"Body", "", nil}}},
		{"malformed", `{"name":`, newBatch, []failure{{"Body", "", nil}}},
		{"not JSON at all", `name=x`, newBatch, []failure{{"Body", "", nil}}},
		{"trailing garbage", `{"name":"x"} x`, newBatch, []failure{{"Body", "", nil}}},
		{"two values", `{"name":"x"}{"name":"y"}`, newBatch, []failure{{"Body", "", nil}}},
		{"an array, not an object", `[1,2]`, newBatch, []failure{{"Body", "array", nil}}},
		{"a string, not an object", `"hello"`, newBatch, []failure{{"Body", "hello", nil}}},
		{"a number for a string", `{"name":5}`, newBatch, []failure{{"Name", "5", nil}}},
		{"an object for a string", `{"name":{"a":1}}`, newBatch, []failure{{"Name", "object", nil}}},
		{"names match case-insensitively", `{"NAME":true}`, newBatch, []failure{{"Name", "true", nil}}},
		{"a string for a bool", `{"clearExisting":"yes","payments":[]}`, newPayments, []failure{{"ClearExisting", "yes", nil}}},
		{"a fraction for a whole number", `{"reversalPeriodDays":1.5}`, newSettings, []failure{{"ReversalPeriodDays", "1.5", nil}}},
		{"past int64", `{"reversalPeriodSeconds":99999999999999999999}`, newSettings, []failure{{"ReversalPeriodSeconds", "99999999999999999999", nil}}},
		{"payments not an array", `{"clearExisting":true,"payments":{"msisdn":"1"}}`, newPayments, []failure{{"Payments", "object", nil}}},
		{"every top-level wrong type, not only the first", `{"name":5,"externalId":true}`, newBatch,
			[]failure{{"Name", "5", nil}, {"ExternalId", "true", nil}}},
		{"the last of repeated names counts", `{"name":"ok","Name":5,"externalId":1,"EXTERNALID":"ok"}`, newBatch,
			[]failure{{"Name", "5", nil}}},
		{"every wrong type of the settings", `{"referralsEnabled":"yes","reversalPeriodDays":1.5,"reversalPeriodSeconds":"60"}`, newSettings,
			[]failure{{"ReferralsEnabled", "yes", nil}, {"ReversalPeriodDays", "1.5", nil}, {"ReversalPeriodSeconds", "60", nil}}},
		{"a string for the approval threshold, beside the others", `{"approvalThreshold":"100","referralsEnabled":1}`, newSettings,
			[]failure{{"ReferralsEnabled", "1", nil}, {"ApprovalThreshold", "100", nil}}},
		{"an array for a string", `{"name":[1]}`, newBatch, []failure{{"Name", "array", nil}}},
		{"a string for a list of strings", `{"url":"https://example.com","events":"batch.closed"}`, newWebhook,
			[]failure{{"Events", "batch.closed", nil}}},
		{"a number in a list of strings", `{"events":["batch.closed",5]}`, newWebhook, []failure{{"Events", "array", nil}}},
		{"a byte that is not UTF-8", "{\"name\":\"a\xffb\"}", newBatch, []failure{{"Name", "a\uFFFDb", nil}}},
		{"an escaped surrogate without its pair", `{"name":"a\ud800b"}`, newBatch, []failure{{"Name", "a\uFFFDb", nil}}},
		{"an escaped low surrogate alone", `{"externalId":"\udc00"}`, newBatch, []failure{{"ExternalId", "\uFFFD", nil}}},
		{"a surrogate pair is text", `{"name":5,"externalId":"\ud83d\ude00"}`, newBatch, []failure{{"Name", "5", nil}}},
		{"not UTF-8 in a list of strings", `{"events":["batch.closed","\udfff"]}`, newWebhook, []failure{{"Events", "\uFFFD", nil}}},
		{"not UTF-8 in a payment", "{\"clearExisting\":true,\"payments\":[{\"msisdn\":\"254712345678\",\"amount\":1,\"firstname\":\"\xfe\"}]}", newPayments,
			[]failure{{"Firstname", "\uFFFD", intp(0)}}},
		{"a member name that is not UTF-8", "{\"n\xffame\":\"x\"}", newBatch, []failure{{"Body", "n\uFFFDame", nil}}},
		{
			// Every wrong type goes on to the domain, but the referral
			// fields', which it checks only when the organisation has
			// referrals (passedOn leaves them out, as decode would).
			"every payment's wrong type, with its index, and the top level's",
			`{"clearExisting":"no","payments":[{"msisdn":254712345678,"amount":1},{"msisdn":"254712345678","amount":1},` +
				`{"firstname":true}, 5 ,{"externalId":["a"]},null,{"referralMsisdn":7}]}`,
			newPayments,
			[]failure{
				{"ClearExisting", "no", nil},
				{"Msisdn", "254712345678", intp(0)},
				{"Firstname", "true", intp(2)},
				{"Payments", "5", intp(3)},
				{"ExternalId", "array", intp(4)},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dst := tt.dst()
			err := decodeBody(tt.body, DefaultMaxBodyBytes, dst)
			if err == nil {
				err = passedOn(dst)
			}
			if diff := cmp.Diff(tt.want, failuresOf(t, err)); diff != "" {
				t.Errorf("failures (-want +got):\n%s", diff)
			}
		})
	}
}

func newBatch() any    { return new(disburse.BatchInput) }
func newPayments() any { return new(disburse.AddPaymentsInput) }
func newSettings() any { return new(settingsRequest) }
func newWebhook() any  { return new(webhookRequest) }

// TestSettingsApprovalThreshold: absent leaves the threshold, null turns
// approval off, a number sets it (docs/api.md section 4.3).
func TestSettingsApprovalThreshold(t *testing.T) {
	for body, want := range map[string]*organisations.ThresholdSetting{
		`{"referralsEnabled":true}`:                        nil,
		`{"approvalThreshold":null}`:                       {Off: true},
		`{"approvalThreshold":0}`:                          {Amount: "0"},
		`{"approvalThreshold":5000.50}`:                    {Amount: "5000.50"},
		`{"APPROVALTHRESHOLD":null}`:                       {Off: true},
		`{"approvalThreshold":null,"approvalThreshold":7}`: {Amount: "7"},
	} {
		var req settingsRequest
		if err := decodeBody(body, DefaultMaxBodyBytes, &req); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		in, err := req.settings()
		if err != nil {
			t.Errorf("%s: %v", body, err)
			continue
		}
		if diff := cmp.Diff(want, in.ApprovalThreshold); diff != "" {
			t.Errorf("%s: threshold (-want +got):\n%s", body, diff)
		}
	}
}

// TestDecodeListOfStrings: an array of strings is read whole, null leaves
// it empty.
// TestDecodeOptionalText: a member read into a pointer is nil when absent
// and points to its value when present, a string or a number's text.
func TestDecodeOptionalText(t *testing.T) {
	type optional struct {
		Name       *string          `json:"name"`
		Amount     *disburse.Number `json:"amount"`
		WrongTypes disburse.WrongTypes
	}
	var got optional
	if err := decodeBody(`{"name":"Acme","amount":12.50}`, DefaultMaxBodyBytes, &got); err != nil {
		t.Fatal(err)
	}
	if got.Name == nil || *got.Name != "Acme" || got.Amount == nil || *got.Amount != "12.50" {
		t.Errorf("name %v, amount %v; want Acme and 12.50", got.Name, got.Amount)
	}
	got = optional{}
	if err := decodeBody(`{}`, DefaultMaxBodyBytes, &got); err != nil || got.Name != nil || got.Amount != nil {
		t.Errorf("absent: name %v, amount %v, err %v; want both nil", got.Name, got.Amount, err)
	}
}

func TestDecodeListOfStrings(t *testing.T) {
	var got webhookRequest
	if err := decodeBody(`{"url":"https://example.com","events":["batch.closed","payment.settled"]}`, DefaultMaxBodyBytes, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"batch.closed", "payment.settled"}, got.Events); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	got = webhookRequest{Events: []string{"x"}}
	if err := decodeBody(`{"events":null}`, DefaultMaxBodyBytes, &got); err != nil || got.Events != nil {
		t.Errorf("null: events %v, err %v", got.Events, err)
	}
}

func TestDecodeTooLarge(t *testing.T) {
	err := decodeBody(`{"name":"`+strings.Repeat("x", 100)+`"}`, 50, new(disburse.BatchInput))
	if c := disburse.ErrorCode(err); c != disburse.CodePayloadTooLarge {
		t.Fatalf("code = %q (%v), want payload_too_large", c, err)
	}
	// A body exactly at the limit is fine.
	body := `{"name":"abc"}`
	if err := decodeBody(body, int64(len(body)), new(disburse.BatchInput)); err != nil {
		t.Fatalf("body at the limit: %v", err)
	}
}

// TestDecodeMoneyAsText: amounts reach the domain as the JSON number's
// text, never through a float; absent is empty; a value that is no number
// is a wrong type; unknown fields are ignored.
func TestDecodeMoneyAsText(t *testing.T) {
	body := `{"clearExisting":false,"unknown":{"x":[1]},"payments":[
		{"msisdn":"254712345678","amount":150.00,"firstname":"Amina","lastname":"B","externalId":"e1","referralAmount":5.5,"referralMsisdn":"447911123456"},
		{"amount":"10"}, {"amount":null}, {"amount":1e2}, {}, {"amount":99999999999999999999.99}, {"amount": -5 }, {"amount":0.1}, {"amount":1e-3}]}`
	var in disburse.AddPaymentsInput
	if err := decodeBody(body, DefaultMaxBodyBytes, &in); err != nil {
		t.Fatal(err)
	}
	wrong := func(value, message string, null bool) disburse.WrongTypes {
		return disburse.WrongTypes{disburse.Field("Amount"): {Value: value, Message: message, Null: null}}
	}
	want := disburse.AddPaymentsInput{ClearExisting: new(bool), Payments: []disburse.PaymentInput{
		{Msisdn: "254712345678", Amount: "150.00", Firstname: "Amina", Lastname: "B", ExternalID: "e1", ReferralAmount: "5.5", ReferralMsisdn: "447911123456"},
		{WrongTypes: wrong("10", "amount must be a number", false)}, {WrongTypes: wrong("null", "amount must be a number", true)},
		{Amount: "1e2"}, {}, {Amount: "99999999999999999999.99"}, {Amount: "-5"}, {Amount: "0.1"}, {Amount: "1e-3"},
	}}
	if diff := cmp.Diff(want, in); diff != "" {
		t.Errorf("input (-want +got):\n%s", diff)
	}

	var dep depositRequest
	if err := decodeBody(`{"amount":0.10}`, DefaultMaxBodyBytes, &dep); err != nil || dep.Amount != "0.10" {
		t.Errorf("deposit amount = %q, %v; want 0.10", dep.Amount, err)
	}
}

// TestDecodePaymentWrongTypes: a payment's wrong types do not fail the
// decode; they go to the domain with the payment, each field of the right
// type kept, so that the domain reports them with its own checks.
func TestDecodePaymentWrongTypes(t *testing.T) {
	body := `{"clearExisting":false,"payments":[{"msisdn":5,"amount":5,"firstname":7},{"msisdn":"0712","amount":1.001},` +
		`{"MSISDN":"254712345678","amount":"10","lastname":{"a":1},"externalId":null,"referralMsisdn":false,"referralAmount":[1]},` +
		`[1],"x",null,{"msisdn":7,"Msisdn":"254712345678","amount":"1","amount":2}]}`
	var in disburse.AddPaymentsInput
	if err := decodeBody(body, DefaultMaxBodyBytes, &in); err != nil {
		t.Fatal(err)
	}
	wrong := func(field disburse.Field, value, kind string) disburse.WrongType {
		return disburse.WrongType{Value: value, Message: strings.ToLower(string(field[:1])) + string(field[1:]) + " must be " + kind}
	}
	want := []disburse.PaymentInput{
		{Amount: "5", WrongTypes: disburse.WrongTypes{"Msisdn": wrong("Msisdn", "5", "a string"), "Firstname": wrong("Firstname", "7", "a string")}},
		{Msisdn: "0712", Amount: "1.001"},
		{Msisdn: "254712345678", WrongTypes: disburse.WrongTypes{
			"Amount": wrong("Amount", "10", "a number"), "Lastname": wrong("Lastname", "object", "a string"),
			"ReferralMsisdn": wrong("ReferralMsisdn", "false", "a string"), "ReferralAmount": wrong("ReferralAmount", "array", "a number"),
		}},
		{WrongTypes: disburse.WrongTypes{"Payments": {Value: "array", Message: "payments[3] must be a JSON object"}}},
		{WrongTypes: disburse.WrongTypes{"Payments": {Value: "x", Message: "payments[4] must be a JSON object"}}},
		{},
		{Msisdn: "254712345678", Amount: "2"}, // the last of repeated members counts, wrong or not
	}
	if diff := cmp.Diff(want, in.Payments); diff != "" {
		t.Errorf("payments (-want +got):\n%s", diff)
	}
}

// TestDecodeClearExisting: absent, false and true are three answers.
func TestDecodeClearExisting(t *testing.T) {
	for body, want := range map[string]*bool{
		`{}`:                     nil,
		`{"clearExisting":null}`: nil,
		`{"clearExisting":false}`: func() *bool {
			b := false
			return &b
		}(),
		`{"clearExisting":true}`: func() *bool {
			b := true
			return &b
		}(),
	} {
		var in disburse.AddPaymentsInput
		if err := decodeBody(body, DefaultMaxBodyBytes, &in); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, in.ClearExisting); diff != "" {
			t.Errorf("%s: clearExisting (-want +got):\n%s", body, diff)
		}
	}
}

// paymentsBody is a request of n valid payments.
func paymentsBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"clearExisting":false,"payments":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"msisdn":"2547%08d","amount":%d.%02d,"firstname":"First%d","lastname":"Last","externalId":"ext-%d"}`, i, 1+i%1000, i%100, i, i)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestDecodeManyPayments: 100,000 payments (docs/api.md section 4.1's limit) decode in
// well under a second of work, straight into the domain's inputs.
func TestDecodeManyPayments(t *testing.T) {
	body := paymentsBody(100_000)
	var in disburse.AddPaymentsInput
	if err := decodeBody(string(body), DefaultMaxBodyBytes, &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Payments) != 100_000 || in.Payments[99_999].Amount != "1000.99" {
		t.Fatalf("decoded %d payments, last %+v", len(in.Payments), in.Payments[len(in.Payments)-1])
	}
	for i, p := range in.Payments {
		if want := fmt.Sprintf("2547%08d", i); p.Msisdn != want || p.ExternalID != "ext-"+strconv.Itoa(i) {
			t.Fatalf("payment %d is %+v, want msisdn %s and external id ext-%d", i, p, want, i)
		}
	}
}

// TestDecodeListInOrder: a list's elements keep their places, whatever
// they are (an object, null, a value that is no object) and wherever
// they fall in the chunks the list is read in; the last of two lists
// under one name is the list.
func TestDecodeListInOrder(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 17, 48, 100, 5000} {
		var body strings.Builder
		body.WriteString(`{"payments":[{"msisdn":"1"}],"clearExisting":true,"payments":[`)
		want := make([]disburse.PaymentInput, n)
		for i := range n {
			if i > 0 {
				body.WriteByte(',')
			}
			switch {
			case i%16 == 0 || i%16 == 15:
				body.WriteString("null")
			case i%7 == 3:
				body.WriteString(strconv.Itoa(i))
				want[i].WrongTypes = disburse.WrongTypes{"Payments": {Value: strconv.Itoa(i), Message: fmt.Sprintf("payments[%d] must be a JSON object", i)}}
			default:
				fmt.Fprintf(&body, `{"msisdn":"%d","amount":%d}`, i, i)
				want[i] = disburse.PaymentInput{Msisdn: strconv.Itoa(i), Amount: disburse.Number(strconv.Itoa(i))}
			}
		}
		body.WriteString(`]}`)
		var got disburse.AddPaymentsInput
		if err := decodeBody(body.String(), DefaultMaxBodyBytes, &got); err != nil {
			t.Fatalf("%d elements: %v", n, err)
		}
		if diff := cmp.Diff(want, got.Payments, cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%d elements (-want +got):\n%s", n, diff)
		}
	}
}

func BenchmarkDecodePayments(b *testing.B) {
	body := string(paymentsBody(100_000))
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var in disburse.AddPaymentsInput
		if err := decodeBody(body, DefaultMaxBodyBytes, &in); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzDecode: no body makes the decode helper and the error writer answer
// anything but 200, a 400 array of well-formed failures, or a 413 problem.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `{}`, `null`, `[]`, `"x"`, `{"clearExisting":true,"payments":[{"msisdn":"254712345678","amount":150.00}]}`,
		`{"clearExisting":"x","payments":[1,{"msisdn":1},{"amount":"1"},null,[],{"MSISDN":{}}]}`,
		`{"payments":{}}`, `{"payments":"x"}`, `{"payments":[{"amount":1e400}]}`, `{"name":"\ud800"}`,
		`{"reversalPeriodDays":-1e3}`, `{"amount":0.001,"reference":5}`, `{} {}`, `{"a":` + strings.Repeat(`[`, 20000),
		strings.Repeat(" ", 300), `{"name":"` + strings.Repeat("x", 300) + `"}`,
	} {
		f.Add([]byte(seed))
	}
	s := testServer(new(bytes.Buffer))
	s.maxBody = 256
	targets := []func() any{newPayments, newBatch, newSettings, func() any { return new(depositRequest) }, func() any { return new(memberRequest) }}
	h := s.limitBody(s.handle(func(w http.ResponseWriter, r *http.Request) error {
		dst := targets[len(r.URL.Path)%len(targets)]()
		if err := decode(r, dst); err != nil {
			return err
		}
		if p, ok := dst.(*disburse.AddPaymentsInput); ok {
			for _, in := range p.Payments {
				if in.Amount != "" && !json.Valid([]byte(in.Amount)) {
					return fmt.Errorf("amount %q is not the JSON text sent", in.Amount)
				}
			}
		}
		return writeJSON(w, http.StatusOK, struct{}{})
	}))
	f.Fuzz(func(t *testing.T, body []byte) {
		for i := range targets {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, httptest.NewRequest("POST", "/"+strings.Repeat("x", i), bytes.NewReader(body)))
			switch w.Code {
			case http.StatusOK:
			case http.StatusBadRequest:
				checkFailureArray(t, w.Body.Bytes())
			case http.StatusRequestEntityTooLarge:
				var p problem
				if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil || p.Code != disburse.CodePayloadTooLarge ||
					w.Header().Get("Content-Type") != "application/problem+json" {
					t.Fatalf("413 body %s: %v", w.Body, err)
				}
			default:
				t.Fatalf("target %d: status %d for %q: %s", i, w.Code, body, w.Body)
			}
		}
	})
}

// checkFailureArray asserts the 400 shape of docs/api.md section 2: a non-empty array of
// objects with exactly errorMessage, fieldName, fieldValue and maybe index.
func checkFailureArray(t *testing.T, body []byte) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	var fs []struct {
		ErrorMessage *string `json:"errorMessage"`
		FieldName    *string `json:"fieldName"`
		FieldValue   *string `json:"fieldValue"`
		Index        *int    `json:"index"`
	}
	if err := dec.Decode(&fs); err != nil || len(fs) == 0 {
		t.Fatalf("400 body %s: %v", body, err)
	}
	for _, f := range fs {
		if f.ErrorMessage == nil || *f.ErrorMessage == "" || f.FieldName == nil || *f.FieldName == "" ||
			f.FieldValue == nil || (f.Index != nil && *f.Index < 0) {
			t.Fatalf("malformed failure in %s", body)
		}
	}
}

// BenchmarkDecodePaymentsTokens reads the same body with encoding/json's
// Decoder (Token and More), member by member into the payments as decode
// does, but for good bodies only: the alternative to jsontext that
// docs/benchmarks.md compares. Its Token decodes every string through
// Decode, which is where its time goes.
func BenchmarkDecodePaymentsTokens(b *testing.B) {
	body := paymentsBody(100_000)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		in, err := tokenDecode(body)
		if err != nil || len(in.Payments) != 100_000 || in.Payments[99_999].Amount != "1000.99" {
			b.Fatalf("%d payments, %v", len(in.Payments), err)
		}
	}
}

func tokenDecode(body []byte) (disburse.AddPaymentsInput, error) {
	var in disburse.AddPaymentsInput
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	fields := planOf(reflect.TypeFor[disburse.PaymentInput]())
	next := func() (json.Token, error) { return dec.Token() }
	if _, err := next(); err != nil { // {
		return in, err
	}
	for dec.More() {
		name, err := next()
		if err != nil {
			return in, err
		}
		if !strings.EqualFold(name.(string), "payments") {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return in, err
			}
			continue
		}
		if _, err := next(); err != nil { // [
			return in, err
		}
		for dec.More() {
			if _, err := next(); err != nil { // {
				return in, err
			}
			var p disburse.PaymentInput
			v := reflect.ValueOf(&p).Elem()
			for dec.More() {
				name, err := next()
				if err != nil {
					return in, err
				}
				value, err := next()
				if err != nil {
					return in, err
				}
				if f := fields.field([]byte(name.(string))); f != nil {
					switch x := value.(type) {
					case string:
						v.Field(f.index).SetString(x)
					case json.Number:
						v.Field(f.index).SetString(string(x))
					}
				}
			}
			if _, err := next(); err != nil { // }
				return in, err
			}
			in.Payments = append(in.Payments, p)
		}
		if _, err := next(); err != nil { // ]
			return in, err
		}
	}
	return in, nil
}
