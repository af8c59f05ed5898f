package portal

import (
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Limits bound failed sign-ins, each a token bucket: Burst failures at
// once, then one every Every. Kept in each replica's memory (docs/portal.md):
// with N replicas an attacker gets at most N times the rate.
type Limits struct {
	PerEmail, PerClient rate.Limit
	EmailBurst          int
	ClientBurst         int
}

// DefaultLimits: five failures per email and twenty per client address at
// once, then one a minute per email and one every six seconds per client.
var DefaultLimits = Limits{
	PerEmail: rate.Every(time.Minute), EmailBurst: 5,
	PerClient: rate.Every(6 * time.Second), ClientBurst: 20,
}

// maxTracked is the number of buckets of each kind past which the limiter
// drops those that still have a failure left. A locked bucket (no failure
// left) is never dropped, so no flood can lift a lockout.
const maxTracked = 100_000

// signInLimiter counts failed sign-ins per email and per client address.
// Only failures spend tokens, and only failures make a bucket: a refused
// sign-in, or one whose email was never wrong, costs no memory.
type signInLimiter struct {
	limits          Limits
	mu              sync.Mutex
	emails, clients buckets
}

func newSignInLimiter(l Limits) *signInLimiter {
	if l.PerEmail == 0 {
		l = DefaultLimits
	}
	return &signInLimiter{limits: l,
		emails:  buckets{every: l.PerEmail, burst: l.EmailBurst, byKey: map[string]*rate.Limiter{}, pruneAt: maxTracked},
		clients: buckets{every: l.PerClient, burst: l.ClientBurst, byKey: map[string]*rate.Limiter{}, pruneAt: maxTracked},
	}
}

func emailKey(email string) string { return strings.ToLower(strings.TrimSpace(email)) }

// allow reports whether both the client and the email have a failure left.
func (s *signInLimiter) allow(email, client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	return s.clients.left(client, now) && s.emails.left(emailKey(email), now)
}

// fail spends a token of the email and of the client.
func (s *signInLimiter) fail(email, client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.emails.spend(emailKey(email), now)
	s.clients.spend(client, now)
}

// tracked is how many buckets the limiter holds.
func (s *signInLimiter) tracked() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.emails.byKey) + len(s.clients.byKey)
}

// buckets are the failure buckets of one kind (emails or clients).
type buckets struct {
	every   rate.Limit
	burst   int
	byKey   map[string]*rate.Limiter
	pruneAt int // prune when a new bucket would pass it
}

// left reports whether key has a failure left; a key without a bucket has
// them all.
func (b *buckets) left(key string, now time.Time) bool {
	l := b.byKey[key]
	return l == nil || l.TokensAt(now) >= 1
}

func (b *buckets) spend(key string, now time.Time) {
	l := b.byKey[key]
	if l == nil {
		if len(b.byKey) >= b.pruneAt {
			b.prune(now)
		}
		l = rate.NewLimiter(b.every, b.burst)
		b.byKey[key] = l
	}
	l.AllowN(now, 1)
}

// prune drops, down to half of maxTracked, the buckets that have a failure
// left, the full ones first (they are the same as none): dropping one only
// ever forgives failures. Locked buckets stay, and the next prune waits
// until another maxTracked/2 buckets have come, so that a map of locked
// buckets is not walked on every failure; locked buckets unlock within
// one refill of their limit, so they cannot pile up faster than failures
// are allowed.
func (b *buckets) prune(now time.Time) {
	for k, l := range b.byKey {
		if l.TokensAt(now) >= float64(b.burst) {
			delete(b.byKey, k)
		}
	}
	for k, l := range b.byKey {
		if len(b.byKey) <= maxTracked/2 {
			break
		}
		if l.TokensAt(now) >= 1 {
			delete(b.byKey, k)
		}
	}
	b.pruneAt = max(maxTracked, len(b.byKey)+maxTracked/2)
}
