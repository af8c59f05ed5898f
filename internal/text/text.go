// Package text holds the rule every text field a client sends is held
// to, and the form in which a failure shows a value back.
package text

import (
	"unicode"
	"unicode/utf8"
)

// Valid reports whether s is text the service stores: valid UTF-8 with
// no control characters (Unicode's Cc: U+0000-U+001F and U+007F-U+009F,
// tab and newline included). Every name, reference and id a client sends is
// held to it before it reaches the store: PostgreSQL refuses a NUL in text,
// and a control character in a name only breaks what shows it later
// (docs/decisions.md).
func Valid(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= utf8.RuneSelf {
			return validSlow(s[i:])
		}
	}
	return true
}

// validSlow is Valid past the first byte that is not plain,
// printable ASCII: most text never gets here.
func validSlow(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// maxFieldValue bounds a failure's fieldValue, in characters: a failure
// names the value, it need not echo a 10 MB name back.
const maxFieldValue = 256

// fieldValueMarker ends a fieldValue that was cut at maxFieldValue.
const fieldValueMarker = "…"

// Short is value as a failure shows it: whole up to maxFieldValue
// characters, else its first maxFieldValue followed by fieldValueMarker.
// It never cuts a UTF-8 sequence in two.
func Short(value string) string {
	if len(value) <= maxFieldValue {
		return value // no more bytes than characters allowed
	}
	n := 0
	for i := range value {
		if n == maxFieldValue {
			return value[:i] + fieldValueMarker
		}
		n++
	}
	return value
}
