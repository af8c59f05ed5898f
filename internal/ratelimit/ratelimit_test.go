package ratelimit

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }

func TestParsePolicy(t *testing.T) {
	for in, want := range map[string]Policy{
		"600/1m": {Name: "p", Quota: 600, Window: time.Minute},
		"5/10s":  {Name: "p", Quota: 5, Window: 10 * time.Second},
		"off":    {Name: "p"},
		"0":      {Name: "p"},
	} {
		got, err := ParsePolicy("p", in)
		if err != nil || got != want {
			t.Errorf("ParsePolicy(%q) = %+v, %v; want %+v", in, got, err, want)
		}
		if again, err := ParsePolicy("p", got.String()); err != nil || again != got {
			t.Errorf("%+v.String() = %q does not parse back: %+v, %v", got, got.String(), again, err)
		}
	}
	for _, in := range []string{"", "600", "600/", "/1m", "-1/1m", "10/1ms", "x/1m", "10/forever"} {
		if _, err := ParsePolicy("p", in); err == nil {
			t.Errorf("ParsePolicy(%q) accepted", in)
		}
	}
	if New(Policy{Name: "off"}, nil) != nil {
		t.Errorf("an off policy made a limiter")
	}
}

// TestAllow: a key spends its quota, is refused with the wait until one
// request fits, gets one back after Window/Quota, and other keys are apart.
func TestAllow(t *testing.T) {
	c := &fakeClock{now: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	l := New(Policy{Name: "test", Quota: 3, Window: 30 * time.Second}, c.Now)
	var got []string
	for range 4 {
		d := l.Allow("a")
		got = append(got, fmt.Sprintf("%v r=%d reset=%s retry=%s", d.Allowed, d.Remaining, d.Reset, d.RetryAfter))
	}
	want := []string{
		"true r=2 reset=10s retry=0s",
		"true r=1 reset=20s retry=0s",
		"true r=0 reset=30s retry=0s",
		"false r=0 reset=30s retry=10s",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("decisions (-want +got):\n%s", diff)
	}
	if d := l.Allow("b"); !d.Allowed || d.Remaining != 2 {
		t.Errorf("another key: %+v", d)
	}
	c.now = c.now.Add(10 * time.Second)
	if d := l.Allow("a"); !d.Allowed || d.Remaining != 0 {
		t.Errorf("after one refill: %+v", d)
	}
	h := http.Header{}
	d := l.Allow("a")
	d.SetHeaders(h)
	wantH := http.Header{
		"Ratelimit-Policy": {`"test";q=3;w=30`},
		"Ratelimit":        {`"test";r=0;t=30`},
		"Retry-After":      {"10"},
	}
	if diff := cmp.Diff(wantH, h); diff != "" {
		t.Errorf("headers (-want +got):\n%s", diff)
	}
}

// TestForgetsIdleKeys: a key left alone for a window is forgotten, and
// the number of keys never passes maxKeys.
func TestForgetsIdleKeys(t *testing.T) {
	c := &fakeClock{now: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	l := New(Policy{Name: "test", Quota: 5, Window: time.Minute}, c.Now)
	l.maxKeys, l.pruneAt = 100, 100
	for i := range 50 {
		l.Allow(fmt.Sprint("idle-", i))
	}
	c.now = c.now.Add(30 * time.Second)
	l.Allow("recent")
	c.now = c.now.Add(31 * time.Second) // the idle ones: a minute alone; "recent": 31 s
	l.Allow("new")
	if got := l.Keys(); got != 2 {
		t.Errorf("%d keys after the sweep, want 2 (recent and new)", got)
	}
	for i := range 1000 {
		l.Allow(fmt.Sprint("flood-", i))
		if l.Keys() > 100 {
			t.Fatalf("%d keys, past the bound of 100", l.Keys())
		}
	}
}

// TestPeek: Peek tells what Allow would, spends nothing, and remembers no
// key it did not know.
func TestPeek(t *testing.T) {
	c := &fakeClock{now: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	l := New(Policy{Name: "test", Quota: 2, Window: 20 * time.Second}, c.Now)
	if d := l.Peek("a"); !d.Allowed || d.Remaining != 2 || l.Keys() != 0 {
		t.Errorf("an unknown key: %+v, %d keys", d, l.Keys())
	}
	l.Allow("a")
	for range 3 {
		if d := l.Peek("a"); !d.Allowed || d.Remaining != 1 {
			t.Errorf("after one request: %+v", d)
		}
	}
	l.Allow("a")
	if d := l.Peek("a"); d.Allowed || d.RetryAfter != 10*time.Second {
		t.Errorf("spent: %+v, want refused with 10s to wait", d)
	}
	c.now = c.now.Add(10 * time.Second)
	if d := l.Peek("a"); !d.Allowed || d.Remaining != 1 {
		t.Errorf("after a refill: %+v", d)
	}
}

// TestSpentKeySurvivesFlood: a key that is being refused stays refused
// however many new keys come after it.
func TestSpentKeySurvivesFlood(t *testing.T) {
	c := &fakeClock{now: time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)}
	l := New(Policy{Name: "test", Quota: 2, Window: time.Minute}, c.Now)
	l.maxKeys, l.pruneAt = 100, 100
	l.Allow("spent")
	l.Allow("spent")
	for i := range 1000 {
		l.Allow(fmt.Sprint("flood-", i))
		if l.Keys() > 100 {
			t.Fatalf("%d keys, past the bound of 100", l.Keys())
		}
	}
	if d := l.Allow("spent"); d.Allowed {
		t.Errorf("a spent key was let through after a flood of new keys")
	}
}
