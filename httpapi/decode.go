package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/disburse/disburse"
)

// decode is the one way a handler reads a JSON body into dst (contract
// section 2). Content-Type is not checked and unknown fields are ignored,
// so clients are not refused for what does not matter. What does matter:
//   - a body past the size limit is a 413 payload_too_large;
//   - a body that is not one JSON value (empty, malformed, trailing data)
//     is a 400 array with fieldName Body;
//   - a value of the wrong type is a 400 array naming the field capitalised
//     (Msisdn, with the payment's index inside payments).
//
// Validation of the values themselves is the domain's.
func decode(r *http.Request, dst any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var failures []disburse.FieldError
	err = json.Unmarshal(body, dst) // Unmarshal refuses trailing data, unlike a Decoder
	var syntax *json.SyntaxError
	switch {
	case err == nil:
	case len(bytes.TrimSpace(body)) == 0:
		return disburse.Invalid("Body", "", "the body is empty; it must be a JSON object")
	case errors.As(err, &syntax):
		msg := fmt.Sprintf("the body is not valid JSON (at byte %d: %s)", syntax.Offset, syntax.Error())
		return disburse.Invalid("Body", "", msg)
	case isTypeError(err):
		failures = append(failures, typeFailure(err, body, "Body", -1))
	default:
		return fmt.Errorf("decode %T: %w", dst, err) // a programming error, not the client's
	}
	// Parts that decode past a wrong type (the payments) report theirs too.
	if p, ok := dst.(interface{ typeFailures() []disburse.FieldError }); ok {
		failures = append(failures, p.typeFailures()...)
	}
	if len(failures) > 0 {
		return &disburse.Error{Code: disburse.CodeInvalid, Message: "the body has values of the wrong type", Fields: failures}
	}
	return nil
}

// readBody reads the whole body, which limitBody has capped. Reading it
// whole lets a failure quote the value that failed.
func readBody(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	if n := r.ContentLength; n > 0 && n <= defaultMaxBodyBytes {
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

// typeFailure turns a json type error found in the object obj into a field
// failure: the field capitalised as the contract names it, the value as sent.
// A value that is not an object at all is a failure of whole (Body, or
// Payments with the payment's index).
func typeFailure(err error, obj []byte, whole string, index int) disburse.FieldError {
	f := disburse.FieldError{FieldName: whole}
	if index >= 0 {
		f.Index = &index
	}
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		f.ErrorMessage = "the value could not be read"
		return f
	}
	if te.Field == "" {
		f.FieldValue = valueText(obj)
		f.ErrorMessage = "the body must be a JSON object"
		if index >= 0 {
			f.ErrorMessage = "payments[" + strconv.Itoa(index) + "] must be a JSON object"
		}
		return f
	}
	path := strings.Split(te.Field, ".")
	name := path[len(path)-1]
	f.FieldName = strings.ToUpper(name[:1]) + name[1:]
	f.FieldValue = valueText(fieldRaw(obj, path))
	f.ErrorMessage = name + " must be " + jsonKind(te.Type)
	return f
}

// fieldRaw finds the raw value at path in obj, matching names as
// encoding/json does: exactly, else without regard to case.
func fieldRaw(obj []byte, path []string) []byte {
	for _, name := range path {
		var m map[string]json.RawMessage
		if json.Unmarshal(obj, &m) != nil {
			return nil
		}
		v, ok := m[name]
		for k, kv := range m {
			if !ok && strings.EqualFold(k, name) {
				v, ok = kv, true
			}
		}
		obj = v
	}
	return obj
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
