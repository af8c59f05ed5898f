package disburse

import (
	"github.com/nyaruka/phonenumbers"
)

// ValidMsisdn reports whether s is an MSISDN as contract section 1 defines it:
// digits only, country code first, no leading zero, 8 to 15 digits, and a
// valid mobile or fixed-line number for its country. A number libphonenumber
// knows as toll-free, premium-rate, personal, VoIP, pager or the like is not
// a payee: nobody's wallet answers on it.
func ValidMsisdn(s string) bool {
	if len(s) < 8 || len(s) > 15 || s[0] == '0' || !allDigits(s) {
		return false
	}
	num, err := phonenumbers.Parse("+"+s, "")
	if err != nil {
		return false
	}
	// GetNumberType is UNKNOWN for a number IsValidNumber refuses, so one
	// call checks both, at the cost of one.
	switch phonenumbers.GetNumberType(num) {
	case phonenumbers.MOBILE, phonenumbers.FIXED_LINE, phonenumbers.FIXED_LINE_OR_MOBILE:
		return true
	}
	return false
}
