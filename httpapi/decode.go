package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"

	"github.com/disburse/disburse"
)

// decode is the one way a handler reads a JSON body into dst (contract
// section 2). Content-Type is not checked and unknown fields are ignored,
// so clients are not refused for what does not matter. What does matter:
//   - a body past the size limit is a 413 payload_too_large;
//   - a body that is not one JSON value (empty, malformed, trailing data),
//     or not an object, is a 400 array with the one failure on Body;
//   - a value of the wrong type is a 400 array naming the field capitalised,
//     every such field of the body in the one array.
//
// The organisation API's bodies are the exception (a wrongTypesTaker, and
// the payments of POST /batches/{id}/payments): their wrong types go on to
// the domain (disburse.WrongTypes), which reports them with its checks of
// the fields of the right type, all in one array.
// Validation of the values themselves is the domain's.
//
// A body with a faster way (a fastDecoder: the payments) tries it first.
// Whatever that way is not sure of, every body that fails among it, goes
// through decodeBytes, which has the failures above.
func decode(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if f, ok := dst.(fastDecoder); ok && f.decodeFast(body) {
		return nil
	}
	return decodeBytes(body, dst)
}

// decodeBytes is decode once the body is read: the way every body can go.
func decodeBytes(body []byte, dst any) error {
	var failures []disburse.FieldError
	err := json.Unmarshal(body, dst) // Unmarshal refuses trailing data, unlike a Decoder
	var syntax *json.SyntaxError
	var wrongType *json.UnmarshalTypeError
	switch {
	case err == nil:
	case len(bytes.TrimSpace(body)) == 0:
		return disburse.Invalid("Body", "", "the body is empty; it must be a JSON object")
	case errors.As(err, &syntax):
		msg := fmt.Sprintf("the body is not valid JSON (at byte %d: %s)", syntax.Offset, syntax.Error())
		return disburse.Invalid("Body", "", msg)
	case errors.As(err, &wrongType) && wrongType.Field == "":
		return disburse.Invalid("Body", valueText(body), "the body must be a JSON object")
	case errors.As(err, &wrongType):
		failures = typeFailures(body, dst)
		// Should the rest not decode either, decode reports what it found.
		if taker, ok := dst.(wrongTypesTaker); ok && decodeWithout(body, failures, dst) == nil {
			taker.passOn(wrongTypesOf(failures))
			failures = nil
		}
	default:
		return fmt.Errorf("decode %T: %w", dst, err) // a programming error, not the client's
	}
	p, partial := dst.(partlyDecoded)
	if partial {
		failures = append(failures, p.ownFailures()...)
	}
	if len(failures) == 0 {
		return nil
	}
	if partial {
		failures = append(failures, p.passedOn()...) // the domain will not see them
	}
	return &disburse.Error{Code: disburse.CodeInvalid, Message: "the body has values of the wrong type", Fields: failures}
}

// partlyDecoded is a body with a part that decodes past wrong types and
// keeps them (the payments).
type partlyDecoded interface {
	// ownFailures are the part's failures that decode reports.
	ownFailures() []disburse.FieldError
	// passedOn are the wrong types the domain reports, if the body reaches it.
	passedOn() []disburse.FieldError
}

// wrongTypesTaker is a body whose wrong types the domain reports beside its
// other checks, rather than decode alone.
type wrongTypesTaker interface {
	passOn(disburse.WrongTypes)
}

// decodeWithout decodes body into dst, which it zeroes first, leaving out
// the members that failed: what remains has the right types.
func decodeWithout(body []byte, failed []disburse.FieldError, dst any) error {
	names, values := members(body)
	var kept bytes.Buffer
	kept.WriteByte('{')
	for k, name := range names {
		if slices.ContainsFunc(failed, func(f disburse.FieldError) bool { return strings.EqualFold(f.FieldName, name) }) {
			continue
		}
		if kept.Len() > 1 {
			kept.WriteByte(',')
		}
		n, _ := json.Marshal(name)
		kept.Write(n)
		kept.WriteByte(':')
		kept.Write(values[k])
	}
	kept.WriteByte('}')
	v := reflect.ValueOf(dst).Elem()
	v.Set(reflect.Zero(v.Type()))
	return json.Unmarshal(kept.Bytes(), dst)
}

// wrongTypesOf turns decode's failures into the domain's WrongTypes.
func wrongTypesOf(failures []disburse.FieldError) disburse.WrongTypes {
	w := make(disburse.WrongTypes, len(failures))
	for i, f := range failures {
		w[i] = disburse.WrongType{Field: f.FieldName, Value: f.FieldValue, Message: f.ErrorMessage}
	}
	return w
}

// readBody reads the whole body, which limitBody has capped. Reading it
// whole lets a failure quote the value that failed.
func readBody(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= DefaultMaxBodyBytes {
		buf.Grow(int(n) + bytes.MinRead) // one allocation for a body of known size
	}
	_, err := buf.ReadFrom(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, payloadTooLarge(tooLarge.Limit)
	case err != nil:
		// A broken or cut-short upload is the client's problem, not a 500.
		return nil, disburse.Invalid("Body", "", "the body could not be read to its end")
	}
	return buf.Bytes(), nil
}

func payloadTooLarge(limit int64) error {
	return disburse.Errorf(disburse.CodePayloadTooLarge, "the request body is larger than %d bytes", limit)
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// typeFailures names every member of the object body that the field of the
// struct dst points to cannot take, in the struct's order: encoding/json
// stops reporting at the first. It runs only once Unmarshal has found one,
// so the reflection costs nothing on the way of a good request. A field
// that decodes itself (json.Unmarshaler) keeps its own failures.
func typeFailures(body []byte, dst any) []disburse.FieldError {
	names, values := members(body)
	var out []disburse.FieldError
	t := reflect.TypeOf(dst).Elem()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = sf.Name
		}
		if !sf.IsExported() || name == "-" || reflect.PointerTo(sf.Type).Implements(unmarshalerType) {
			continue
		}
		var raw json.RawMessage
		for k, n := range names { // the last match wins, as in encoding/json
			if strings.EqualFold(n, name) {
				raw = values[k]
			}
		}
		if raw != nil && isTypeError(json.Unmarshal(raw, reflect.New(sf.Type).Interface())) {
			out = append(out, disburse.FieldError{
				FieldName: strings.ToUpper(name[:1]) + name[1:], FieldValue: valueText(raw), ErrorMessage: name + " must be " + jsonKind(sf.Type),
			})
		}
	}
	if len(out) == 0 { // cannot happen: Unmarshal found one; never answer 200 for it
		out = append(out, disburse.FieldError{FieldName: "Body", ErrorMessage: "the body has a value of the wrong type"})
	}
	return out
}

// members lists the names and values of the JSON object obj, in order.
func members(obj []byte) (names []string, values []json.RawMessage) {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	for dec.More() {
		tok, err := dec.Token()
		name, ok := tok.(string)
		var v json.RawMessage
		if err != nil || !ok || dec.Decode(&v) != nil {
			break
		}
		names, values = append(names, name), append(values, v)
	}
	return names, values
}

// jsonKind names, for a client, the JSON value a Go type accepts.
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a whole number"
	case reflect.Slice, reflect.Array:
		return "an array"
	default:
		return "an object"
	}
}
