package sqlstore

import (
	"testing"
	"time"

	"github.com/disburse/disburse/auth"
)

// TestTokenCacheDropsReadsBeforeAnEmptying: a read that began before the
// cache was emptied (by an auth write's commit) may have read what that
// commit changed, so it is not kept; one begun after is.
func TestTokenCacheDropsReadsBeforeAnEmptying(t *testing.T) {
	now := time.Unix(1000, 0)
	c := newTokenCache(time.Second, func() time.Time { return now })
	_, gen, ok := c.get("h")
	if ok {
		t.Fatal("an empty cache had a token")
	}
	c.empty() // a revocation commits while the read runs
	c.put("h", auth.Token{APIKeyID: "stale"}, gen, now)
	if _, _, ok := c.get("h"); ok {
		t.Fatal("a read begun before the emptying was kept")
	}
	_, gen, _ = c.get("h")
	c.put("h", auth.Token{APIKeyID: "fresh"}, gen, now)
	if tk, _, ok := c.get("h"); !ok || tk.APIKeyID != "fresh" {
		t.Fatalf("a read begun after: %+v, %v", tk, ok)
	}
	now = now.Add(time.Second)
	if _, _, ok := c.get("h"); ok {
		t.Fatal("a token kept past the TTL")
	}
}
