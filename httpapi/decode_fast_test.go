package httpapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"pgregory.net/rapid"

	"github.com/disburse/disburse"
)

// allowRequest lets cmp see the decoded request whole: the payments and
// the passed-on wrong types are unexported.
var allowRequest = cmp.AllowUnexported(addPaymentsRequest{}, paymentList{})

// tester is what checkFastAsSlow needs of a *testing.T or a *rapid.T.
type tester interface {
	Helper()
	Fatalf(format string, args ...any)
}

// checkFastAsSlow decodes body the fast way, decode's way, and
// decodeBytes's way alone, and fails t unless they agree: what the fast way
// takes, json.Unmarshal takes with a nil error and decodes the same; what
// it does not take, it leaves untouched; and decode answers as decodeBytes
// does, error and value. It reports whether the fast way took body.
func checkFastAsSlow(t tester, body []byte) bool {
	t.Helper()
	var fast addPaymentsRequest
	took := fast.decodeFast(body)
	if took {
		var slow addPaymentsRequest
		if err := json.Unmarshal(body, &slow); err != nil {
			t.Fatalf("decodeFast took %q, which json.Unmarshal refuses: %v", body, err)
		}
		if diff := cmp.Diff(slow, fast, allowRequest); diff != "" {
			t.Fatalf("decodeFast of %q (-json.Unmarshal +decodeFast):\n%s", body, diff)
		}
	} else if diff := cmp.Diff(addPaymentsRequest{}, fast, allowRequest); diff != "" {
		t.Fatalf("decodeFast refused %q but wrote into its request:\n%s", body, diff)
	}
	var viaDecode, viaBytes addPaymentsRequest
	errDecode := decodeBody(string(body), DefaultMaxBodyBytes, &viaDecode)
	errBytes := decodeBytes(body, &viaBytes)
	if diff := cmp.Diff(errorView(errBytes), errorView(errDecode)); diff != "" {
		t.Fatalf("decode error of %q (-decodeBytes +decode):\n%s", body, diff)
	}
	if diff := cmp.Diff(viaBytes, viaDecode, allowRequest); diff != "" {
		t.Fatalf("decode of %q (-decodeBytes +decode):\n%s", body, diff)
	}
	return took
}

// errorView is err as a client would see it: its text and field failures.
func errorView(err error) any {
	var e *disburse.Error
	if errors.As(err, &e) {
		return struct {
			Text   string
			Fields []disburse.FieldError
		}{err.Error(), e.Fields}
	}
	return fmt.Sprint(err)
}

// TestDecodeFastTakes: the fast way takes the usual bodies, so that it is
// worth having, and leaves each kind of doubtful one to decodeBytes; either
// way the answer is decodeBytes's.
func TestDecodeFastTakes(t *testing.T) {
	nested := func(depth int) string { return strings.Repeat("[", depth) + strings.Repeat("]", depth) }
	tests := []struct {
		name string
		body string
		want bool
	}{
		{"a typical body", string(paymentsBody(3)), true},
		{"one decoded on every CPU", string(paymentsBody(3 * parallelDecodes)), true},
		{"no payments", `{"payments":[]}`, true},
		{"whitespace everywhere", " \r\n{ \"payments\"\t:\n[ {\"msisdn\" : \"1\" } ,\t2 ] , \"clearExisting\" : true }\n", true},
		{"wrong types in payments", `{"clearExisting":false,"payments":[1,"x",null,[],{"msisdn":5,"amount":{"a":[1]}}]}`, true},
		{"strings that look like syntax", `{"note":"\"payments\":[1,]","payments":["],[{\"\\",{"msisdn":"\\\"]}"}],"x":"}"}`, true},
		{"payments nested in an unknown field", `{"unknown":{"Payments":{"payments":"]"}},"payments":[{}]}`, true},
		{"clearExisting twice", `{"clearExisting":false,"payments":[],"CLEAREXISTING":true}`, true},
		{"nesting at the fast way's limit", `{"payments":[` + nested(fastMaxDepth) + `]}`, true},

		{"past the fast way's limit", `{"payments":[` + nested(fastMaxDepth+1) + `]}`, false},
		{"past encoding/json's limit in the body only", `{"payments":[` + nested(9999) + `]}`, false},
		{"a trailing comma", `{"payments":[1,]}`, false},
		{"a leading comma", `{"payments":[,1]}`, false},
		{"two commas", `{"payments":[1,,2]}`, false},
		{"no comma", `{"payments":[1 2]}`, false},
		{"brackets crossed across elements", `{"payments":[{],[}]}`, false},
		{"an unterminated element", `{"payments":["x]}`, false},
		{"a bad escape in an element", `{"payments":[{"msisdn":"\x"}]}`, false},
		{"a raw newline in an element's string", "{\"payments\":[\"a\nb\"]}", false},
		{"a bad number", `{"payments":[01]}`, false},
		{"payments cased", `{"Payments":[]}`, false},
		{"payments and a cased one", `{"payments":[],"PAYMENTS":[1]}`, false},
		{"payments twice", `{"payments":[1],"payments":[2]}`, false},
		{"a cased payments after an escaped quote", `{"payments":[1],"note":"\"}","Payments":[2]}`, false},
		{"payments escaped", `{"payment\u0073":[1]}`, false},
		{"payments with a long s", `{"paymentſ":[1]}`, false},
		{"another name with an escape", `{"a\"b":1,"payments":[]}`, false},
		{"another name past ASCII", `{"café":1,"payments":[]}`, false},
		{"payments null", `{"payments":null}`, false},
		{"payments an object", `{"payments":{"msisdn":"1"}}`, false},
		{"no payments member", `{"clearExisting":true}`, false},
		{"an empty object", `{}`, false},
		{"a wrong type beside payments", `{"clearExisting":"yes","payments":[]}`, false},
		{"a bad value beside payments", `{"clearExisting":tru,"payments":[]}`, false},
		{"trailing data", `{"payments":[]} x`, false},
		{"a second value", `{"payments":[]}{}`, false},
		{"unterminated", `{"payments":[]`, false},
		{"an array, not an object", `[{"payments":[]}]`, false},
		{"an extra bracket", `{"payments":[]],"x":1}`, false},
		{"empty", ``, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := checkFastAsSlow(t, []byte(tt.body)); got != tt.want {
				t.Errorf("decodeFast = %v, want %v", got, tt.want)
			}
		})
	}
}

// TestDecodeFastNotIntoAFullRequest: encoding/json decodes into what dst
// already holds; the fast way does not try to.
func TestDecodeFastNotIntoAFullRequest(t *testing.T) {
	req := addPaymentsRequest{wrongTypes: disburse.WrongTypes{{Field: "X"}}}
	if req.decodeFast(paymentsBody(1)) {
		t.Error("decodeFast took a body into a request that was not empty")
	}
}

// TestDecodeFastAsSlow: for bodies that are mostly add-payments requests,
// each with a few of the mutations that decide between the ways, the fast
// way is never wrong, and both ways are taken.
func TestDecodeFastAsSlow(t *testing.T) {
	var took, refused int
	rapid.Check(t, func(t *rapid.T) {
		if checkFastAsSlow(t, []byte(paymentsBodyGen().Draw(t, "body"))) {
			took++
		} else {
			refused++
		}
	})
	t.Logf("the fast way took %d bodies and refused %d", took, refused)
	if took == 0 || refused == 0 {
		t.Errorf("the fast way took %d bodies and refused %d: the generator misses a way", took, refused)
	}
}

// FuzzDecodeFast: no body makes the fast way answer differently from
// decodeBytes.
func FuzzDecodeFast(f *testing.F) {
	for _, seed := range []string{
		string(paymentsBody(2)), `{"payments":[]}`, `{"payments":[1,]}`, `{"payments":[{"a":"\"]"},[{}]],"clearExisting":true}`,
		`{"PAYMENTS":[],"payments":[]}`, `{"x":"\"payments\":[","payments":[null]}`, `{"payments":[` + strings.Repeat("[", 120) + `]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		checkFastAsSlow(t, body)
	})
}

// mutations are the parts of a body that bodyGen can get wrong, or right
// in a way the fast way refuses.
var mutations = []string{
	"space", "clearExisting", "payments name", "name", "payments value", "after the start", "separator", "before the end",
	"element", "amount", "string", "literal", "member separator", "wrapper", "bytes",
}

// paymentsBodyGen makes add-payments bodies: valid requests, varied in what
// the fast way must follow (whitespace, strings, nesting, other members),
// with none, one or two of the mutations, each of which may make the body
// one the fast way must refuse. Few at a time, so that one is not hidden
// behind a syntax error from another.
func paymentsBodyGen() *rapid.Generator[string] {
	return rapid.Custom(func(t *rapid.T) string {
		g := bodyGen{t: t, wild: map[string]bool{}}
		for range rapid.IntRange(0, 2).Draw(t, "mutations") {
			g.wild[rapid.SampledFrom(mutations).Draw(t, "mutation")] = true
		}
		members := []string{
			`"clearExisting"` + g.space() + ":" + g.space() + g.pick("clearExisting", []string{"true", "false", "null"}, `"yes"`, "1", "{}", "tru"),
			g.paymentsName() + g.space() + ":" + g.space() + g.paymentsValue(),
		}
		for range rapid.IntRange(0, 3).Draw(t, "extras") {
			members = append(members, g.name()+g.space()+":"+g.space()+g.value(0))
		}
		members = rapid.Permutation(members).Draw(t, "order")
		sep := g.pick("member separator", []string{",", ", "}, "", ",,")
		body := g.space() + "{" + g.space() + strings.Join(members, sep) + g.space() + "}" + g.space()
		body = fmt.Sprintf(g.pick("wrapper", []string{"%s"}, "[%s]", "%s x", "%s{}", `%s,`, `{"a":%s}`), body)
		return g.byteEdits(body)
	})
}

// bodyGen draws the parts of a body, valid ones only but for its wild
// mutations.
type bodyGen struct {
	t    *rapid.T
	wild map[string]bool
}

// pick draws one of valid, or, when the mutation label is wild, one of
// valid or invalid.
func (g bodyGen) pick(label string, valid []string, invalid ...string) string {
	if g.wild[label] {
		valid = append(valid[:len(valid):len(valid)], invalid...)
	}
	return rapid.SampledFrom(valid).Draw(g.t, label)
}

// space is JSON's whitespace, or, when wild, one that is not JSON's.
func (g bodyGen) space() string {
	return g.pick("space", []string{"", "", " ", "\n\t", "\r\n  "}, "\f", "\u00a0")
}

func (g bodyGen) paymentsName() string {
	return g.pick("payments name", []string{`"payments"`},
		`"payments"`, `"payments"`, `"Payments"`, `"PAYMENTS"`, `"payment\u0073"`, `"paymentſ"`, `"pay\"ments"`, `"payment"`)
}

// name is the name of another member: one that encoding/json ignores or
// clearExisting cased; when wild, a name the fast way refuses, or payments
// again in some form.
func (g bodyGen) name() string {
	return g.pick("name", []string{`"unknown"`, `"note"`, `"CLEAREXISTING"`, `""`, `"paymentsx"`},
		`"café"`, `"a\"b"`, `"a\\"`, "\"a\x01\"", `"payments"`, `"Payments"`, `"payment\u0053"`, `"paymentſ"`)
}

func (g bodyGen) paymentsValue() string {
	if !g.wild["payments value"] || rapid.IntRange(0, 4).Draw(g.t, "payments kind") > 0 {
		return g.array()
	}
	return rapid.SampledFrom([]string{"null", "{}", `"x"`, "5", "[", "[}", "]"}).Draw(g.t, "payments not an array")
}

// array is the payments array; when wild, its commas sometimes wrong.
func (g bodyGen) array() string {
	var b strings.Builder
	b.WriteString(g.pick("after the start", []string{""}, ","))
	for i := range rapid.IntRange(0, 5).Draw(g.t, "elements") {
		if i > 0 {
			b.WriteString(g.pick("separator", []string{",", " , "}, ",", ",", ",,", " ", ""))
		}
		b.WriteString(g.space() + g.element() + g.space())
	}
	b.WriteString(g.pick("before the end", []string{""}, "", ",", " ,"))
	return "[" + b.String() + "]"
}

// element is a payment, mostly; or a value of the wrong type or deep;
// when wild, bad JSON.
func (g bodyGen) element() string {
	switch rapid.IntRange(0, 9).Draw(g.t, "element kind") {
	case 0:
		return g.value(0)
	case 1:
		return g.pick("element", []string{"null", "5", "[]"}, `{]`, `[}`, `{"msisdn":}`, `{"a":1,}`, `tru`, `"x`, `{"a" 1}`,
			`01`, `1 2`, `}`, `{"msisdn":"\q"}`, "\"a\tb\"", `{"a":[1,]}`, `-`, `1.`, `"\ud800"`, `"\u12"`, "\"\xff\"")
	case 2:
		d := rapid.SampledFrom([]int{1, 5, fastMaxDepth, fastMaxDepth + 1}).Draw(g.t, "depth")
		return strings.Repeat("[", d) + strings.Repeat("]", d)
	default:
		return g.payment()
	}
}

// payment is a payment object with some of its fields, named as the
// contract has them or cased, of the right type or not.
func (g bodyGen) payment() string {
	names := []string{"msisdn", "amount", "firstname", "lastname", "externalId", "referralAmount", "referralMsisdn", "MSISDN", "other"}
	var fields []string
	for _, name := range names {
		if rapid.Bool().Draw(g.t, "has "+name) {
			fields = append(fields, g.space()+`"`+name+`"`+g.space()+":"+g.space()+g.fieldValue(name))
		}
	}
	return "{" + strings.Join(fields, ",") + "}"
}

func (g bodyGen) fieldValue(name string) string {
	if rapid.IntRange(0, 5).Draw(g.t, "field kind") == 0 {
		return g.value(1)
	}
	if strings.Contains(strings.ToLower(name), "amount") {
		return g.pick("amount", []string{"150.00", "1e2", "-5", "0.1", "99999999999999999999.99", `"10"`, "0"}, "1.", "0x1", "+1")
	}
	return g.string()
}

// string is a JSON string, with escapes, quotes and brackets inside.
func (g bodyGen) string() string {
	if rapid.Bool().Draw(g.t, "any string") {
		b, _ := json.Marshal(rapid.String().Draw(g.t, "string"))
		return string(b)
	}
	return g.pick("string", []string{`"254712345678"`, `"a\"b"`, `"\\"`, `"\\\""`, `"\u0041"`, `"],}{[,:"`, `"\/"`, `""`, `"}"`, `"\"}"`, `"\"]"`},
		`"\"`, `"\x"`, "\"\n\"")
}

// value is any JSON value, nested a little.
func (g bodyGen) value(depth int) string {
	kind := rapid.IntRange(0, 4).Draw(g.t, "value kind")
	if depth > 2 {
		kind %= 2
	}
	switch kind {
	case 0:
		return g.string()
	case 1:
		return g.pick("literal", []string{"0", "-1.5e3", "true", "false", "null"}, "nul", "1e", "--1")
	case 2:
		return "[" + g.space() + g.value(depth+1) + "," + g.value(depth+1) + "]"
	case 3:
		return `{"payments":` + g.value(depth+1) + `,` + g.string() + ":" + g.value(depth+1) + "}"
	default:
		return "{}"
	}
}

// byteEdits, when the mutation "bytes" is wild, edits a few bytes of body with bytes that
// matter to a JSON scanner.
func (g bodyGen) byteEdits(body string) string {
	if !g.wild["bytes"] {
		return body
	}
	b := []byte(body)
	for range rapid.IntRange(0, 3).Draw(g.t, "edits") {
		if len(b) == 0 {
			break
		}
		i := rapid.IntRange(0, len(b)-1).Draw(g.t, "at")
		c := rapid.SampledFrom([]byte("\"\\,[]{}: a0\x00\xff\x1f")).Draw(g.t, "byte")
		switch rapid.IntRange(0, 2).Draw(g.t, "edit") {
		case 0:
			b = append(b[:i], append([]byte{c}, b[i:]...)...)
		case 1:
			b = append(b[:i], b[i+1:]...)
		default:
			b[i] = c
		}
	}
	return string(b)
}
