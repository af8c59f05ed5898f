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
//   - A change of an organisation (its default version, which a token
//     carries) through this Store empties the cache after its commit too.
//   - Where other processes write the database too (PostgreSQL's
//     replicas), such a write also announces itself in its transaction
//     (WatchTokens: a NOTIFY, delivered on commit), and every Store
//     listening empties its cache when the announcement arrives. While a
//     Store is not listening (starting, or its listening connection lost)
//     its cache is off: every request reads the database, so that a
//     missed announcement never leaves a revoked token alive.
//   - SQLite has no such announcement: one process serves a file
//     (docs/operations.md, "PostgreSQL"), and there the first point is all
//     there is. A second process on the file would see another's
//     revocation within TokenCacheTTL.
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
	// off: nothing is kept, every read goes to the database (a watched
	// cache whose announcements may be missed: WatchTokens).
	off bool
	// gen counts the emptyings: a read begun at an earlier generation
	// may predate a commit that changed it, so it is not kept.
	gen    uint64
	tokens map[string]cachedToken
	// reads are the reads under way, by hash: a request that misses while
	// one runs waits for it rather than read too, so that a TTL's end
	// costs one read however many requests arrive meanwhile.
	reads map[string]*tokenRead
}

// tokenRead is one read of a token from the database, which others may wait for.
type tokenRead struct {
	done  chan struct{}
	token auth.Token
	err   error
}

type cachedToken struct {
	token auth.Token
	read  time.Time
}

func newTokenCache(ttl time.Duration, now func() time.Time) *tokenCache {
	return &tokenCache{ttl: ttl, now: now, tokens: map[string]cachedToken{}, reads: map[string]*tokenRead{}}
}

// token returns the token with hash: the one kept, if read within the
// TTL; else the outcome of the read under way, or of read, run now and
// kept if found and no emptying came meanwhile.
func (c *tokenCache) token(hash string, read func() (auth.Token, error)) (auth.Token, error) {
	c.mu.Lock()
	if c.off {
		c.mu.Unlock()
		return read()
	}
	if e, ok := c.tokens[hash]; ok && c.now().Sub(e.read) < c.ttl {
		c.mu.Unlock()
		return e.token, nil
	}
	if r, ok := c.reads[hash]; ok {
		c.mu.Unlock()
		<-r.done
		return r.token, r.err
	}
	r := &tokenRead{done: make(chan struct{})}
	c.reads[hash] = r
	gen, at := c.gen, c.now()
	c.mu.Unlock()
	defer close(r.done)
	r.token, r.err = read()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reads[hash] == r {
		delete(c.reads, hash)
	}
	if r.err == nil && gen == c.gen && !c.off { // no commit emptied the cache while it read
		if len(c.tokens) >= tokenCacheMax {
			clear(c.tokens)
		}
		c.tokens[hash] = cachedToken{token: r.token, read: at}
	}
	return r.token, r.err
}

// empty forgets every token, and every read under way: a request that
// misses after this reads afresh.
func (c *tokenCache) empty() {
	c.setOff(nil)
}

// setOff empties the cache and, unless off is nil, turns it off or on.
// Turning it on empties it too: a read that ran while it was off may
// predate an announcement no one heard.
func (c *tokenCache) setOff(off *bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.tokens)
	clear(c.reads)
	if off != nil {
		c.off = *off
	}
}
