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

// maxTracked bounds the limiter's memory: past it the oldest half is
// dropped, which only ever forgives failures, never blocks anyone.
const maxTracked = 100_000

// signInLimiter counts failed sign-ins per email and per client address.
// Only failures spend tokens; a success costs nothing.
type signInLimiter struct {
	limits Limits
	mu     sync.Mutex
	byKey  map[string]*rate.Limiter
	order  []string
}

func newSignInLimiter(l Limits) *signInLimiter {
	if l.PerEmail == 0 {
		l = DefaultLimits
	}
	return &signInLimiter{limits: l, byKey: make(map[string]*rate.Limiter)}
}

// allow reports whether both the email and the client have a failure left.
func (s *signInLimiter) allow(email, client string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	return s.bucket("e:"+strings.ToLower(strings.TrimSpace(email)), s.limits.PerEmail, s.limits.EmailBurst).TokensAt(now) >= 1 &&
		s.bucket("c:"+client, s.limits.PerClient, s.limits.ClientBurst).TokensAt(now) >= 1
}

// fail spends a token of the email and of the client.
func (s *signInLimiter) fail(email, client string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	s.bucket("e:"+strings.ToLower(strings.TrimSpace(email)), s.limits.PerEmail, s.limits.EmailBurst).AllowN(now, 1)
	s.bucket("c:"+client, s.limits.PerClient, s.limits.ClientBurst).AllowN(now, 1)
}

func (s *signInLimiter) bucket(key string, every rate.Limit, burst int) *rate.Limiter {
	if l, ok := s.byKey[key]; ok {
		return l
	}
	if len(s.order) >= maxTracked {
		for _, k := range s.order[:maxTracked/2] {
			delete(s.byKey, k)
		}
		s.order = append([]string(nil), s.order[maxTracked/2:]...)
	}
	l := rate.NewLimiter(every, burst)
	s.byKey[key] = l
	s.order = append(s.order, key)
	return l
}
