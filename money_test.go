package disburse

import (
	"encoding/json"
	"math"
	"testing"
)

func TestParseMoney(t *testing.T) {
	tests := []struct {
		text string
		want Money
		ok   bool
	}{
		{"1", 100, true},
		{"150", 15000, true},
		{"150.5", 15050, true},
		{"150.50", 15050, true},
		{"0.01", 1, true},
		{"0", 0, true},
		{"92233720368547757", 9223372036854775700, true},
		{"1.001", 0, false},
		{"1e2", 0, false},
		{"1E2", 0, false},
		{"1e-3", 0, false},
		{`"10"`, 0, false},
		{"-5", 0, false},
		{"+5", 0, false},
		{"null", 0, false},
		{"", 0, false},
		{"1.", 0, false},
		{".5", 0, false},
		{"01", 0, false},
		{"99999999999999999999", 0, false},
		{"92233720368547758", 0, false},
		{"true", 0, false},
		{"1 ", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseMoney(tt.text)
		if ok != tt.ok || got != tt.want {
			t.Errorf("ParseMoney(%q) = %d, %v; want %d, %v", tt.text, got, ok, tt.want, tt.ok)
		}
	}
}

func TestMoneyJSON(t *testing.T) {
	tests := map[Money]string{0: "0.00", 1: "0.01", 15000: "150.00", 15050: "150.50", -250: "-2.50", 100000000: "1000000.00"}
	for m, want := range tests {
		b, err := json.Marshal(m)
		if err != nil || string(b) != want {
			t.Errorf("json.Marshal(%d) = %s, %v; want %s", m, b, err, want)
		}
	}
}

// FuzzParseMoney checks that whatever ParseMoney accepts prints back to the
// same value, so no text can create or lose a cent on the way in.
func FuzzParseMoney(f *testing.F) {
	for _, s := range []string{"1", "150.50", "0.01", "1e2", "-5", "99999999999999999999", "1.001"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		m, ok := ParseMoney(text)
		if !ok {
			return
		}
		if m < 0 {
			t.Fatalf("ParseMoney(%q) = %d, negative", text, m)
		}
		back, ok := ParseMoney(m.String())
		if !ok || back != m {
			t.Fatalf("ParseMoney(%q) = %d, but %q parses to %d, %v", text, m, m.String(), back, ok)
		}
	})
}

// TestMoneyStringExtremes: every int64 is written as a JSON number, the
// least one too, whose magnitude int64 cannot hold.
func TestMoneyStringExtremes(t *testing.T) {
	for m, want := range map[Money]string{
		math.MinInt64:     "-92233720368547758.08",
		math.MinInt64 + 1: "-92233720368547758.07",
		math.MaxInt64:     "92233720368547758.07",
		-5:                "-0.05",
		0:                 "0.00",
		100:               "1.00",
	} {
		if got := m.String(); got != want {
			t.Errorf("Money(%d).String() = %q, want %q", int64(m), got, want)
		}
	}
}

func TestValidMsisdn(t *testing.T) {
	tests := map[string]bool{
		"254712345678":     true,  // Kenya mobile
		"447911123456":     true,  // UK mobile
		"14155552671":      true,  // US, fixed line or mobile
		"442071234567":     true,  // UK fixed line
		"18002345678":      false, // US toll-free
		"449090000000":     false, // UK premium rate
		"15005550006":      false, // US personal number
		"447011234567":     false, // UK personal number
		"0712345678":       false, // local leading zero
		"+254712345678":    false, // plus sign
		"2547123":          false, // 7 digits
		"2547123456789012": false, // 16 digits
		"254 712345678":    false,
		"25471234567a":     false,
		"999999999999":     false, // no such country code
		"254012345678":     false, // not a valid Kenyan number
		"":                 false,
	}
	for msisdn, want := range tests {
		if got := validMsisdn(msisdn); got != want {
			t.Errorf("validMsisdn(%q) = %v, want %v", msisdn, got, want)
		}
	}
}

func TestValidID(t *testing.T) {
	id := NewID()
	tests := map[string]bool{
		id:                                     true,
		"not-a-uuid":                           false,
		"":                                     false,
		"0190B2C4-0000-7000-8000-000000000000": false, // upper case is not the form we hand out
		"{" + id + "}":                         false,
		id + "x":                               false,
	}
	for s, want := range tests {
		if got := ValidID(s); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", s, got, want)
		}
	}
}
