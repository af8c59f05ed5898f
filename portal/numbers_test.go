package portal

import (
	"math"
	"testing"

	"github.com/disburse/disburse"
)

// TestMoney: every amount with its currency's code and its digits grouped
// by three, exactly, to the largest and smallest int64 of minor units.
func TestMoney(t *testing.T) {
	for _, tc := range []struct {
		currency string
		m        disburse.Money
		want     string
	}{
		{"KES", 0, "KES 0.00"},
		{"KES", 5, "KES 0.05"},
		{"KES", 99_999, "KES 999.99"},
		{"KES", 100_000, "KES 1,000.00"},
		{"KES", 31_990_099, "KES 319,900.99"},
		{"UGX", 123_456_789_00, "UGX 123,456,789.00"},
		{"KES", -1_234_567_89, "KES -1,234,567.89"},
		{"KES", -99_999, "KES -999.99"},
		{"KES", math.MaxInt64, "KES 92,233,720,368,547,758.07"},
		{"KES", math.MinInt64, "KES -92,233,720,368,547,758.08"},
		{"", 1_000_00, "1,000.00"},
	} {
		if got := money(tc.currency, tc.m); got != tc.want {
			t.Errorf("money(%q, %d) = %q, want %q", tc.currency, int64(tc.m), got, tc.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int64]string{0: "0", 999: "999", 1000: "1,000", 20_000: "20,000", 1_234_567: "1,234,567",
		-1000: "-1,000", -999: "-999", math.MinInt64: "-9,223,372,036,854,775,808"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
