// Package wire holds the exact Go forms of the service's wire values, which
// the documents name with x-go-type: amounts (Amount, integer minor units,
// never a float) and date-times (DateTime, UTC, seven fractional digits,
// with Z in version 2026-12-01 and without offset in the first,
// docs/versioning.md). Any Go client generated from a document can use it.
package wire

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Amount is an amount of money in minor units (cents). It reads and writes
// the JSON number's text exactly: 150000.01 is 15000001, never a float.
type Amount int64

// ParseAmount reads a decimal amount with at most two decimals ("150",
// "150.5", "-0.25"); exponents and more decimals are refused.
func ParseAmount(text string) (Amount, error) {
	neg := strings.HasPrefix(text, "-")
	digits := strings.TrimPrefix(text, "-")
	whole, frac, hasDot := strings.Cut(digits, ".")
	if whole == "" || len(frac) > 2 || (hasDot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("amount %q: want a decimal with at most two decimals", text)
	}
	frac += strings.Repeat("0", 2-len(frac))
	units, err := strconv.ParseInt(whole, 10, 64)
	if err != nil || units > math.MaxInt64/100-1 {
		return 0, fmt.Errorf("amount %q: too large", text)
	}
	cents, _ := strconv.ParseInt(frac, 10, 64)
	a := Amount(units*100 + cents)
	if neg {
		a = -a
	}
	return a, nil
}

// MustAmount is ParseAmount for constants in code; it panics on a bad amount.
func MustAmount(text string) Amount {
	a, err := ParseAmount(text)
	if err != nil {
		panic(err)
	}
	return a
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String writes the amount with two decimals, as the service does.
func (a Amount) String() string {
	sign, v := "", uint64(a)
	if a < 0 {
		sign, v = "-", -v
	}
	cents := strconv.FormatUint(v%100, 10)
	if len(cents) < 2 {
		cents = "0" + cents
	}
	return sign + strconv.FormatUint(v/100, 10) + "." + cents
}

// MarshalJSON writes the amount as a JSON number with two decimals.
func (a Amount) MarshalJSON() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalJSON reads a JSON number's text exactly.
func (a *Amount) UnmarshalJSON(b []byte) error {
	v, err := ParseAmount(string(b))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// NullableAmount is an amount where null means something of its own: an
// approval threshold of null turns approval off. Valid false reads and
// writes null; a pointer to one left nil is the field left out.
type NullableAmount struct {
	Amount Amount
	Valid  bool
}

// MarshalJSON writes the amount, or null.
func (n NullableAmount) MarshalJSON() ([]byte, error) {
	if !n.Valid {
		return []byte("null"), nil
	}
	return n.Amount.MarshalJSON()
}

// UnmarshalJSON reads an amount exactly, or null.
func (n *NullableAmount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*n = NullableAmount{}
		return nil
	}
	n.Valid = true
	return n.Amount.UnmarshalJSON(b)
}

// DateTimeLayout is the service's date-time form in version 2026-12-01:
// always UTC, seven fractional digits, Z.
const DateTimeLayout = "2006-01-02T15:04:05.0000000Z"

// FirstVersionLayout is the first version's: the same without the Z,
// which is UTC all the same.
const FirstVersionLayout = "2006-01-02T15:04:05.0000000"

// DateTime is a date-time as the service writes it; its Time is in UTC.
type DateTime struct{ time.Time }

// MarshalJSON writes the time in UTC in the service's newest form.
func (d DateTime) MarshalJSON() ([]byte, error) {
	return []byte(`"` + d.UTC().Format(DateTimeLayout) + `"`), nil
}

// UnmarshalJSON reads either version's form as UTC (a webhook endpoint of
// the first version sends that version's). Anything else is an error, so
// a change of the wire format cannot go unnoticed.
func (d *DateTime) UnmarshalJSON(b []byte) error {
	s, err := strconv.Unquote(string(b))
	if err != nil {
		return errors.New("date-time: want a JSON string")
	}
	layout := FirstVersionLayout
	if strings.HasSuffix(s, "Z") {
		layout = DateTimeLayout
	}
	t, err := time.ParseInLocation(layout, s, time.UTC)
	if err != nil || len(s) != len(layout) {
		return fmt.Errorf("date-time %q: want yyyy-mm-ddThh:mm:ss.fffffffZ (UTC)", s)
	}
	d.Time = t
	return nil
}
