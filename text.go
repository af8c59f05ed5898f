package disburse

import (
	"unicode"

	"github.com/disburse/disburse/internal/text"
)

// TextMessage explains text.Valid's rule in a failure.
func TextMessage(jsonName string) string {
	return jsonName + " must be text: valid UTF-8 without control characters"
}

// Text adds a failure for field when value is not text.Valid, and reports
// whether value passed, so that the field's other checks run only on text.
func (v *Validation) Text(index int, field, value string) bool {
	if text.Valid(value) {
		return true
	}
	v.Add(index, field, value, TextMessage(jsonName(field)))
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
