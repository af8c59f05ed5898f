package msisdn

import "testing"

func TestMask(t *testing.T) {
	for in, want := range map[string]string{
		"254712345678": "254******678",
		"447911123456": "44*******456",
		"14155552671":  "1*******671",
		"0712345678":   "**********", // not an msisdn: hidden whole
		"abc":          "***",
		"":             "",
	} {
		if got := Mask(in); got != want {
			t.Errorf("Mask(%q) = %q, want %q", in, got, want)
		}
	}
}
