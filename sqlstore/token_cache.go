package sqlstore

import (
	"sync"
	"time"

	"github.com/disburse/disburse/auth"
)

// The token cache: TokenByHash is the one read every organisation request
// makes, and on PostgreSQL its round trip was a third of an authenticated
// GET /accounts' service CPU (docs/benchmarks.md, "Small requests"). A token
// read here is kept for TokenCacheTTL, so a client's requests within it
// read the database for their work only. What the cache may make stale,
// and for how long (docs/api.md section 3, docs/operations.md
// "Authentication"):
//
//   - A key revoked through this Store (any auth write: a revocation, a new
//     token, the purge) empties the cache after its commit, and a read begun
//     before that commit is not kept: on this process, a revoked key's
//     tokens stop at once.
//   - A key revoked by another process (a replica) stops its tokens here
//     within TokenCacheTTL.
//   - A change of an organisation (its default version, which a token
//     carries) through this Store empties the cache after its commit too;
//     made by another process, it reaches the tokens kept here within
//     TokenCacheTTL.
//
// A token's expiry is checked on every request against the kept expiry
// (auth.Service.tokenCaller), and a key's role never changes. A token not
// found is never kept: a wrong token reads the database every time, and
// spends its address's budget (httpapi/ratelimit.go).

// TokenCacheTTL is how long a token read is kept.
const TokenCacheTTL = time.Second

// tokenCacheMax bounds the cache: past it, it starts again empty.
const tokenCacheMax = 10_000

// tokenCache keeps tokens by hash.
type tokenCache struct {
	ttl time.Duration
	now func() time.Time

	mu sync.Mutex
	// gen counts the emptyings: a read begun at an earlier generation
	// may predate a commit that changed it, so it is not kept.
	gen    uint64
	tokens map[string]cachedToken
}

type cachedToken struct {
	token auth.Token
	read  time.Time
}

func newTokenCache(ttl time.Duration, now func() time.Time) *tokenCache {
	return &tokenCache{ttl: ttl, now: now, tokens: map[string]cachedToken{}}
}

// get returns the token kept for hash, if it was read within the TTL, and
// the generation a read of it begins at otherwise.
func (c *tokenCache) get(hash string) (auth.Token, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.tokens[hash]
	if ok && c.now().Sub(e.read) < c.ttl {
		return e.token, c.gen, true
	}
	return auth.Token{}, c.gen, false
}

// put keeps a token read that began at generation gen, unless the cache
// has been emptied since.
func (c *tokenCache) put(hash string, t auth.Token, gen uint64, read time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.tokens) >= tokenCacheMax {
		clear(c.tokens)
	}
	c.tokens[hash] = cachedToken{token: t, read: read}
}

// empty forgets every token, and every read under way.
func (c *tokenCache) empty() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.tokens)
}
