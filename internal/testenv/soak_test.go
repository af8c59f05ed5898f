package testenv

import (
	"testing"
	"time"
)

// TestSoak reads the soak's length from SoakVar: 1 is the default, a
// duration is itself, and without it the test is skipped.
func TestSoak(t *testing.T) {
	for _, c := range []struct {
		value string
		want  time.Duration // 0: skipped
	}{
		{"", 0},
		{"1", 3 * time.Minute},
		{"90s", 90 * time.Second},
		{"5m", 5 * time.Minute},
	} {
		t.Setenv(SoakVar, c.value)
		var got time.Duration
		skipped := false
		t.Run(c.value, func(t *testing.T) {
			defer func() { skipped = t.Skipped() }()
			got = Soak(t, 3*time.Minute)
		})
		if got != c.want || skipped != (c.want == 0) {
			t.Errorf("%s=%q: %v, skipped %v; want %v", SoakVar, c.value, got, skipped, c.want)
		}
	}
}
