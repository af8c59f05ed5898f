package sqlstore

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse/auth"
)

// TestTokenCacheDropsReadsBeforeAnEmptying: a read under way when the
// cache is emptied (by an auth write's commit) may have read what that
// commit changed, so it is not kept, and a request after the emptying
// reads afresh rather than wait for it; one begun after is kept for the
// TTL and no longer.
func TestTokenCacheDropsReadsBeforeAnEmptying(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newTokenCache(time.Second, func() time.Time { return now })
	reads := 0
	read := func(id string) func() (auth.Token, error) {
		return func() (auth.Token, error) { reads++; return auth.Token{APIKeyID: id}, nil }
	}
	stale, err := c.token("h", func() (auth.Token, error) {
		// A revocation commits while this read runs; a request meanwhile reads afresh.
		c.empty()
		if tk, _ := c.token("h", read("fresh")); tk.APIKeyID != "fresh" {
			t.Errorf("a request after the emptying got %q, want a fresh read", tk.APIKeyID)
		}
		return auth.Token{APIKeyID: "stale"}, nil
	})
	if err != nil || stale.APIKeyID != "stale" {
		t.Fatalf("the read's own answer: %+v, %v", stale, err)
	}
	if tk, _ := c.token("h", read("again")); tk.APIKeyID != "fresh" || reads != 1 {
		t.Fatalf("kept %q after %d reads, want the fresh read's token, kept", tk.APIKeyID, reads)
	}
	now = now.Add(time.Second)
	if tk, _ := c.token("h", read("later")); tk.APIKeyID != "later" {
		t.Fatalf("a token kept past the TTL: %q", tk.APIKeyID)
	}
	missing := errors.New("not found")
	for range 2 {
		if _, err := c.token("wrong", func() (auth.Token, error) { reads++; return auth.Token{}, missing }); err != missing {
			t.Fatalf("a wrong token: %v", err)
		}
	}
	if reads != 4 {
		t.Errorf("%d reads, want 4: a token not found is read every time", reads)
	}
}

// TestTokenCacheOneReadAtATime: requests that miss while a read runs wait
// for it and share its token.
func TestTokenCacheOneReadAtATime(t *testing.T) {
	c := newTokenCache(time.Second, time.Now)
	started, release := make(chan struct{}), make(chan struct{})
	got := make(chan string, 1)
	go func() {
		tk, _ := c.token("h", func() (auth.Token, error) { close(started); <-release; return auth.Token{APIKeyID: "one"}, nil })
		got <- tk.APIKeyID
	}()
	<-started
	waiter := make(chan string, 1)
	go func() {
		tk, _ := c.token("h", func() (auth.Token, error) { return auth.Token{APIKeyID: "two"}, nil })
		waiter <- tk.APIKeyID
	}()
	close(release)
	if a, b := <-got, <-waiter; a != "one" || b != "one" {
		t.Errorf("the reader got %q, the other %q: want both the one read's", a, b)
	}
}

// TestTokenCacheOffWhileNotListening: while a watched cache's listener is
// lost, every request reads the database and nothing is kept, a read
// begun before the loss included; once it listens again, tokens are kept.
func TestTokenCacheOffWhileNotListening(t *testing.T) {
	c := newTokenCache(time.Second, func() time.Time { return time.Unix(1000, 0) })
	w := TokenWatch{c}
	reads := 0
	read := func() (auth.Token, error) { reads++; return auth.Token{APIKeyID: "k"}, nil }
	_, _ = c.token("h", func() (auth.Token, error) { w.Lost(); return read() })
	_, _ = c.token("h", read)
	_, _ = c.token("h", read)
	if reads != 3 {
		t.Fatalf("%d reads while lost, want 3: nothing kept", reads)
	}
	w.Listening()
	_, _ = c.token("h", read)
	_, _ = c.token("h", read)
	if reads != 4 {
		t.Fatalf("%d reads once listening, want 4: the token kept", reads)
	}
	w.Changed()
	_, _ = c.token("h", read)
	if reads != 5 {
		t.Fatalf("%d reads after an announcement, want 5", reads)
	}
}
