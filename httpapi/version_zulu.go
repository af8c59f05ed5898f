package httpapi

import (
	"bytes"
	"io"
)

// zulu rewrites a JSON answer, as it streams, into version 2026-12-01's
// date-times (docs/versioning.md): each value of a date-time member,
// written in dateTimeLayout, gains its Z. The answers' JSON is written
// by many encoders (encoding/json through dateTime, the generated
// payment writers, the streamed answers), all in the first version's
// form; rewriting at the one writer they share keeps every one of them
// as it is. A member is a date-time by its name (dateTimeMembers, which
// a test holds to the document) and by its value's shape, so text an
// organisation chose is never touched.
type zulu struct {
	inString, escaped bool
	// text is the current or last string's text, up to maxMemberName
	// bytes; long: it was longer.
	text []byte
	long bool
	// dateNext: the next string is the value of a date-time member;
	// dateNow: the current one is.
	dateNext, dateNow bool
}

// maxMemberName bounds the text zulu keeps: enough for every member name
// of dateTimeMembers and for a date-time.
const maxMemberName = 32

// dateTimeMembers are the names of the members whose value is a
// date-time, in every schema of the API.
var dateTimeMembers = map[string]bool{
	"at": true, "cancelledAt": true, "createdAt": true, "decidedAt": true, "deliveredAt": true, "eventAt": true,
	"failingSince": true, "nextAttemptAt": true, "registeredAt": true, "requestedAt": true, "reversalDueAt": true,
	"revokedAt": true, "sentAt": true, "settledAt": true, "submittedAt": true, "timestamp": true, "updatedAt": true,
}

// write writes b to dst, with a Z at the end of each date-time.
func (z *zulu) write(dst io.Writer, b []byte) (int, error) {
	start := 0
	for i, c := range b {
		if !z.step(c) {
			continue
		}
		if _, err := dst.Write(b[start:i]); err != nil {
			return start, err
		}
		if _, err := io.WriteString(dst, "Z"); err != nil {
			return i, err
		}
		start = i
	}
	if _, err := dst.Write(b[start:]); err != nil {
		return start, err
	}
	return len(b), nil
}

// step reads c and reports whether a Z goes before it: c closes a
// date-time.
func (z *zulu) step(c byte) bool {
	if z.inString {
		switch {
		case z.escaped:
			z.escaped = false
		case c == '\\':
			z.escaped = true
		case c == '"':
			z.inString = false
			return z.dateNow && !z.long && dateTimeShaped(z.text)
		}
		if len(z.text) < maxMemberName {
			z.text = append(z.text, c)
		} else {
			z.long = true
		}
		return false
	}
	switch c {
	case '"':
		z.inString, z.dateNow, z.dateNext = true, z.dateNext, false
		z.text, z.long = z.text[:0], false
	case ':': // the last string was a member's name
		z.dateNext = !z.long && dateTimeMembers[string(z.text)]
	case ' ', '\t', '\n', '\r':
	default:
		z.dateNext = false
	}
	return false
}

// dateTimeShaped: s is a date-time in dateTimeLayout.
func dateTimeShaped(s []byte) bool {
	return len(s) == len(dateTimeLayout) && s[4] == '-' && s[7] == '-' && s[10] == 'T' && s[13] == ':' && s[16] == ':' && s[19] == '.'
}

// zuluJSON is body with version 2026-12-01's date-times.
func zuluJSON(body []byte) []byte {
	var out bytes.Buffer
	out.Grow(len(body) + 64)
	_, _ = (&zulu{}).write(&out, body)
	return out.Bytes()
}
