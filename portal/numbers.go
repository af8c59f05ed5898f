package portal

import (
	"strconv"
	"strings"

	"github.com/disburse/disburse"
)

// money shows an amount as the portal writes every amount: the currency's
// code, then the amount with two decimals, as the API writes it, and a
// comma between each three digits of the whole part: KES 319,900.99
// (docs/portal.md, "Amounts"). It groups the digits of disburse.Money's
// own text, so the minor units never pass through a float.
func money(currency string, m disburse.Money) string {
	whole, cents, _ := strings.Cut(m.String(), ".")
	sign := ""
	if rest, ok := strings.CutPrefix(whole, "-"); ok {
		sign, whole = "-", rest
	}
	s := sign + group(whole) + "." + cents
	if currency == "" {
		return s
	}
	return currency + " " + s
}

// thousands writes n with a comma between each three digits.
func thousands(n int64) string {
	if n < 0 {
		return "-" + group(strconv.FormatUint(-uint64(n), 10))
	}
	return group(strconv.FormatInt(n, 10))
}

// group puts a comma between each three digits of digits, from the right.
func group(digits string) string {
	var b strings.Builder
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}
