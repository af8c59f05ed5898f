package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/disburse/disburse"
)

// decode is the one way a handler reads a JSON body into dst, a pointer to
// a struct that names its members in `json` tags (docs/api.md section 2).
// It reads the body as a stream, once, payments arrays included.
// Content-Type is not checked and, in the first version, unknown members
// are ignored, so clients are not refused for what does not matter; in
// 2026-12-01 they are a 400 naming them (docs/versioning.md), before any
// other check. What does matter:
//   - a body past the size limit is a 413 payload_too_large;
//   - a body that is not one JSON value (empty, malformed, trailing data),
//     or not an object, is a 400 array with the one failure on Body;
//   - a value of the wrong type is a failure of its field (decode_fields.go),
//     every such field of the body in the one array.
//
// A struct with a disburse.WrongTypes field (the organisation API's
// inputs) keeps its wrong types there, and the domain reports them beside
// its checks of the other fields, all in one array; for any other struct
// decode reports them itself. Validation of the values is the domain's.
func decode(r *http.Request, dst any) error {
	dec := jsontext.NewDecoder(r.Body, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	wrong, err := readBody(dec, dst, since20261201(r))
	if err != nil {
		return bodyError(r, err)
	}
	if len(wrong) == 0 {
		return nil
	}
	return &disburse.Error{Code: disburse.CodeInvalid, Message: "the body has values of the wrong type", Fields: wrong}
}

// decodeOptional is decode for a route whose body may be left out: an
// empty body (or only whitespace) leaves dst as it is.
func decodeOptional(r *http.Request, dst any) error {
	body, err := bodyBytes(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return decode(r, dst)
}

// errNotOneValue is a body with more after its JSON value.
var errNotOneValue = errors.New("the body has more after its JSON value")

// readBody reads the one JSON value of the body into dst. wrong are the
// wrong types that decode reports: those dst has no WrongTypes field for.
func readBody(dec *jsontext.Decoder, dst any, strict bool) (wrong []disburse.FieldError, err error) {
	switch dec.PeekKind() {
	case '{':
		wrong, err = decodeInto(dec, dst, strict)
	case 'n':
		_, err = dec.ReadValue() // null: an empty object, as encoding/json has it
	default:
		v, err := dec.ReadValue()
		if err != nil {
			return nil, err
		}
		shown := valueText(v) // v lasts until the next read
		if err := endOfBody(dec); err != nil {
			return nil, err
		}
		return nil, disburse.Invalid("Body", shown, "the body must be a JSON object")
	}
	if err != nil {
		return nil, err
	}
	return wrong, endOfBody(dec)
}

// endOfBody checks that nothing but whitespace follows the body's value.
func endOfBody(dec *jsontext.Decoder) error {
	switch _, err := dec.ReadToken(); {
	case err == io.EOF:
		return nil
	case err == nil:
		return errNotOneValue
	default:
		return err
	}
}

// bodyError turns what stopped the reading of the body into its answer:
// the client's mistakes are a 400 on Body, or a 413.
func bodyError(r *http.Request, err error) error {
	var tooLarge *http.MaxBytesError
	var syntax *jsontext.SyntacticError
	var failure *disburse.Error
	switch {
	case errors.As(err, &failure):
		return err
	case errors.As(err, &tooLarge):
		return payloadTooLarge(tooLarge.Limit)
	case err == io.EOF:
		return disburse.Invalid("Body", "", "the body is empty; it must be a JSON object")
	case errors.As(err, &syntax), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, errNotOneValue):
		// A body past the limit is a 413 wherever its JSON breaks.
		if _, rest := io.Copy(io.Discard, r.Body); errors.As(rest, &tooLarge) {
			return payloadTooLarge(tooLarge.Limit)
		}
		return disburse.Invalid("Body", "", "the body is not valid JSON ("+err.Error()+")")
	default:
		// A broken or cut-short upload is the client's problem, not a 500.
		return disburse.Invalid("Body", "", "the body could not be read to its end")
	}
}

func payloadTooLarge(limit int64) error {
	return disburse.Errorf(disburse.CodePayloadTooLarge, "the request body is larger than %d bytes", limit)
}

// valueText shows a JSON value as a failure's fieldValue (docs/decisions.md):
// a string without its quotes, a number or literal as written, an object
// or array by kind only ("object", "array"), so that a failure never
// echoes a whole body back. Validation.Add shortens it.
func valueText(v jsontext.Value) string {
	switch v.Kind() {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		s, _ := unquote(v, nil)
		return s
	}
	return string(v)
}

// unquote is the string value v, a JSON string, with its escapes read.
// valid is false when v is not UTF-8 text: a byte that is not UTF-8, or
// an escaped surrogate without its pair (`"\ud800"`); each is then shown
// as U+FFFD, and the field fails (docs/api.md section 2), never stored so
// rewritten. buf is scratch space.
func unquote(v jsontext.Value, buf []byte) (s string, valid bool) {
	if plain(v) {
		return string(v[1 : len(v)-1]), true
	}
	// v is a string the decoder read: only invalid UTF-8 errs.
	b, err := jsontext.AppendUnquote(buf[:0], v)
	return string(b), err == nil
}

// notUTF8 is the failure of a string field whose value is not UTF-8 text.
func notUTF8(name, shown string) *disburse.WrongType {
	return &disburse.WrongType{Value: shown, Message: must(name, "valid UTF-8 text (no invalid bytes, no unpaired surrogate escapes)")}
}

// plain reports whether the JSON string v needs no unquoting: printable
// ASCII without escapes, as nearly every string of a request is.
func plain(v jsontext.Value) bool {
	for _, c := range v[1 : len(v)-1] {
		if c < 0x20 || c >= 0x80 || c == '\\' {
			return false
		}
	}
	return true
}

// must names, for a wrong type's message, what a field takes.
func must(name, what string) string { return fmt.Sprintf("%s must be %s", name, what) }
