package msisdn

import (
	"strconv"
	"strings"
)

// Mask hides an msisdn for a log line: the country code and the last three
// digits stay (254712345678 → 254******678), enough to tell a country and
// to match a complaint, not enough to call anyone. A value that is not an
// msisdn's shape is hidden whole.
func Mask(s string) string {
	if len(s) < 8 || len(s) > 15 || !allDigits(s) || s[0] == '0' {
		return strings.Repeat("*", min(len(s), 15))
	}
	codes := callingCodes()
	keep := 0
	for i := 1; i <= 3; i++ {
		if cc, _ := strconv.Atoi(s[:i]); codes[cc].known {
			keep = i
			break
		}
	}
	return s[:keep] + strings.Repeat("*", len(s)-keep-3) + s[len(s)-3:]
}
