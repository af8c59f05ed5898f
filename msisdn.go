package disburse

import "github.com/disburse/disburse/internal/msisdn"

// validMsisdn reports whether s is a payee's number as docs/api.md section 1
// has it: digits only, country code first, no leading zero, 8 to 15
// digits, a mobile or fixed-line number for its country (package
// internal/msisdn holds the check, and the test that keeps it true to
// libphonenumber).
func validMsisdn(s string) bool { return msisdn.Valid(s) }
