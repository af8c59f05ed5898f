package httpapi

import (
	"encoding/json"
	"reflect"
	"strings"
)

// fastDecoder is a body that can often be decoded without encoding/json's
// passes over the whole of it. decodeFast reports true only when it has
// decoded body into the receiver exactly as json.Unmarshal would have,
// with a nil error, and decodeBytes would have found nothing to report;
// otherwise it has written nothing, and decodeBytes has the exact failures.
type fastDecoder interface {
	decodeFast(body []byte) bool
}

// fastMaxDepth is the deepest nesting the fast path takes inside the
// payments array. encoding/json refuses a body nested past 10000 levels,
// which only a check of the whole body sees: a payment is one level deep.
const fastMaxDepth = 100

// decodeFast decodes an add-payments body with its payments array read
// once. json.Unmarshal would check the syntax of the whole body, then skip
// over the array, before paymentList.UnmarshalJSON split it and decoded
// the elements, which checks each of them again: a large share of the
// CPU of decoding the payments, all of it on one CPU. Here the
// array is split once and its elements checked as they are decoded; the
// rest of the body, the array replaced by null, goes to json.Unmarshal.
// Why that is enough: when the rest is valid JSON, paymentsArray has read
// its structure right (it only misreads invalid JSON), so the array stands
// where encoding/json finds the payments; and every element valid, split
// strictly (splitArray), makes the array valid: the body is then valid,
// and decodes as the rest and the array do.
func (r *addPaymentsRequest) decodeFast(body []byte) bool {
	if !reflect.ValueOf(r).Elem().IsZero() { // json.Unmarshal would merge into it
		return false
	}
	from, to, elems, ok := paymentsArray(body)
	if !ok {
		return false
	}
	rest := make([]byte, 0, len(body)-(to-from)+len("null"))
	rest = append(append(append(rest, body[:from]...), "null"...), body[to:]...)
	var req addPaymentsRequest
	if json.Unmarshal(rest, &req) != nil {
		return false
	}
	items, unread, err := decodePayments(elems)
	if err != nil || unread >= 0 { // decodeBytes reports either

		return false
	}
	req.Payments = paymentList{items: items}
	*r = req
	return true
}

// paymentsArray finds, in the JSON object body, the value of its member
// "payments": an array, body[from:to], and its elements. It follows the
// object's syntax only as far as it needs to, the rest being checked by
// json.Unmarshal. ok is false unless exactly one member can be the
// payments field: encoding/json matches names without regard to case,
// Unicode's included ("paymentſ"), and after unescaping them, so a name
// like that, or one with an escape or a byte past ASCII, is left to it.
func paymentsArray(body []byte) (from, to int, elems [][]byte, ok bool) {
	i := skipSpace(body, 0)
	if i == len(body) || body[i] != '{' {
		return 0, 0, nil, false
	}
	from = -1
	for i = skipSpace(body, i+1); i < len(body); {
		name, next, ok := memberName(body, i)
		switch {
		case !ok:
			return 0, 0, nil, false
		case name == "payments":
			if from >= 0 {
				return 0, 0, nil, false
			}
			from = next
			elems, next = splitArray(body, next, fastMaxDepth)
			if next < 0 {
				return 0, 0, nil, false
			}
			to = next
		case strings.EqualFold(name, "payments"):
			return 0, 0, nil, false
		default:
			next = skipValue(body, next)
		}
		i = skipSpace(body, next)
		switch {
		case i < len(body) && body[i] == ',':
			i = skipSpace(body, i+1)
		case i < len(body) && body[i] == '}':
			return from, to, elems, from >= 0
		default:
			return 0, 0, nil, false
		}
	}
	return 0, 0, nil, false
}

// memberName reads the name of the member at body[i], and its colon: next
// is the index of its value. ok is false for a name with an escape or a
// byte past ASCII, which encoding/json would unescape or fold.
func memberName(body []byte, i int) (name string, next int, ok bool) {
	if body[i] != '"' {
		return "", 0, false
	}
	end := i + 1
	for end < len(body) && body[end] != '"' {
		if c := body[end]; c == '\\' || c >= 0x80 {
			return "", 0, false
		}
		end++
	}
	next = skipSpace(body, end+1)
	if next >= len(body) || body[next] != ':' {
		return "", 0, false
	}
	return string(body[i+1 : end]), skipSpace(body, next+1), true
}

// skipValue is the index just past the value at body[i], when the body
// is valid JSON: the first comma or closing bracket outside a string and
// outside the value's own nesting. If the body is not valid, it does not
// matter where it stops: json.Unmarshal refuses the rest.
func skipValue(body []byte, i int) int {
	depth, inString := 0, false
	for ; i < len(body); i++ {
		c := body[i]
		switch {
		case inString:
			if c == '\\' {
				i++
			} else if c == '"' {
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
		case depth == 0 && (c == ',' || c == ']' || c == '}'):
			return i
		case c == ']' || c == '}':
			depth--
		}
	}
	return i
}
