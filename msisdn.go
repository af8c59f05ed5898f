package disburse

import (
	"github.com/nyaruka/phonenumbers"
)

// ValidMsisdn reports whether s is an MSISDN as contract section 1 defines it:
// digits only, country code first, no leading zero, 8 to 15 digits, and a
// number that libphonenumber accepts as valid for its country.
func ValidMsisdn(s string) bool {
	if len(s) < 8 || len(s) > 15 || s[0] == '0' || !allDigits(s) {
		return false
	}
	num, err := phonenumbers.Parse("+"+s, "")
	if err != nil {
		return false
	}
	return phonenumbers.IsValidNumber(num)
}
