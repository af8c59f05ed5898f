package text

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestValid(t *testing.T) {
	for s, want := range map[string]bool{
		"": true, "November payouts": true, "Zoë – ✓ 日本": true,
		"a\x00b": false, "tab\there": false, "line\n": false, "\x7f": false, "\u0085": false, "a\xffb": false,
	} {
		if got := Valid(s); got != want {
			t.Errorf("Valid(%q) = %v, want %v", s, got, want)
		}
	}
}

// FuzzText holds Valid to its definition, and Short to its
// bounds: at most 256 characters and the marker, valid UTF-8 kept valid,
// a prefix of the value.
func FuzzText(f *testing.F) {
	for _, s := range []string{"", "abc", "a\x00", strings.Repeat("é", 300), "\xff\xfe", strings.Repeat("x", 256)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		want := utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl)
		if got := Valid(s); got != want {
			t.Fatalf("Valid(%q) = %v, want %v", s, got, want)
		}
		short := Short(s)
		body, cut := strings.CutSuffix(short, fieldValueMarker)
		switch {
		case short == s:
			if utf8.RuneCountInString(s) > maxFieldValue && utf8.ValidString(s) {
				t.Fatalf("Short kept %d characters", utf8.RuneCountInString(s))
			}
		case !cut || !strings.HasPrefix(s, body) || utf8.RuneCountInString(body) != maxFieldValue:
			t.Fatalf("Short(%q) = %q", s, short)
		case utf8.ValidString(s) && !utf8.ValidString(short):
			t.Fatalf("Short cut a character: %q", short)
		}
	})
}
