package disburse

import (
	"math"
	"strconv"
	"strings"
)

// Money is an amount in minor units (cents). It never passes through a float.
type Money int64

// MinAmount is the smallest payment amount (docs/api.md section S4.2: one currency unit).
const MinAmount Money = 100

// ParseMoney reads the text of a JSON number as an amount with at most two
// decimals. It accepts only plain decimal notation ("150", "150.5", "150.50"):
// exponents, signs, more than two decimals and values past int64 are refused.
func ParseMoney(text string) (Money, bool) {
	whole, frac, hasDot := strings.Cut(text, ".")
	if whole == "" || len(frac) > 2 || (hasDot && frac == "") {
		return 0, false
	}
	if len(whole) > 1 && whole[0] == '0' {
		return 0, false
	}
	if !allDigits(whole) || !allDigits(frac) {
		return 0, false
	}
	for len(frac) < 2 {
		frac += "0"
	}
	units, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || units > math.MaxInt64/100-1 {
		return 0, false
	}
	cents, _ := strconv.ParseInt(frac, 10, 64)
	return Money(units*100 + cents), true
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String formats the amount with two decimals, as the API writes it.
func (m Money) String() string {
	// The magnitude is unsigned: -m overflows for the least int64.
	sign, v := "", uint64(m)
	if m < 0 {
		sign, v = "-", -v
	}
	return sign + strconv.FormatUint(v/100, 10) + "." + twoDigits(v%100)
}

func twoDigits(v uint64) string {
	if v < 10 {
		return "0" + strconv.FormatUint(v, 10)
	}
	return strconv.FormatUint(v, 10)
}

// MarshalJSON writes the amount as a JSON number with two decimals (docs/api.md section 1).
func (m Money) MarshalJSON() ([]byte, error) { return []byte(m.String()), nil }
