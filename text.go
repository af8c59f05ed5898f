package disburse

import (
	"unicode"
	"unicode/utf8"
)

// ValidText reports whether s is text the service stores: valid UTF-8 with
// no control characters (Unicode's Cc: U+0000-U+001F and U+007F-U+009F,
// tab and newline included). Every name, reference and id a client sends is
// held to it before it reaches the store: PostgreSQL refuses a NUL in text,
// and a control character in a name only breaks what shows it later
// (docs/decisions.md).
func ValidText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f || c >= utf8.RuneSelf {
			return validTextSlow(s[i:])
		}
	}
	return true
}

// validTextSlow is ValidText past the first byte that is not plain,
// printable ASCII: most text never gets here.
func validTextSlow(s string) bool {
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

// textMessage explains ValidText's rule in a failure.
func textMessage(jsonName string) string {
	return jsonName + " must be text: valid UTF-8 without control characters"
}

// Text adds a failure for field when value is not ValidText, and reports
// whether value passed, so that the field's other checks run only on text.
func (v *Validation) Text(index int, field, value string) bool {
	if ValidText(value) {
		return true
	}
	v.Add(index, field, value, textMessage(jsonName(field)))
	return false
}

// jsonName is a failure's field name as the JSON member is spelled:
// "ExternalId" is "externalId".
func jsonName(field string) string {
	if field == "" {
		return field
	}
	return string(unicode.ToLower(rune(field[0]))) + field[1:]
}

// maxFieldValue bounds a failure's fieldValue, in characters: a failure
// names the value, it need not echo a 10 MB name back.
const maxFieldValue = 256

// fieldValueMarker ends a fieldValue that was cut at maxFieldValue.
const fieldValueMarker = "…"

// ShortValue is value as a failure shows it: whole up to maxFieldValue
// characters, else its first maxFieldValue followed by fieldValueMarker.
// It never cuts a UTF-8 sequence in two.
func ShortValue(value string) string {
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
