// Package ratelimit keeps request budgets per key (a token, a client
// address) in memory, with golang.org/x/time/rate's token buckets, and
// says so in the IETF RateLimit-Policy and RateLimit header fields
// (draft-ietf-httpapi-ratelimit-headers). The API and the portal's
// sign-in share it. Budgets are per process: docs/operations.md says what
// that means with several replicas.
package ratelimit

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Policy is a budget of Quota requests per Window: a bucket of Quota
// tokens, refilled evenly over Window. The zero Policy limits nothing.
type Policy struct {
	Name   string // the policy's name in the headers
	Quota  int
	Window time.Duration
}

// Off reports whether p limits nothing.
func (p Policy) Off() bool { return p.Quota <= 0 || p.Window <= 0 }

// String is p as ParsePolicy reads it: "QUOTA/WINDOW", or "off".
func (p Policy) String() string {
	if p.Off() {
		return "off"
	}
	return strconv.Itoa(p.Quota) + "/" + p.Window.String()
}

// ParsePolicy reads "QUOTA/WINDOW" (600/1m: 600 requests a minute) or
// "off", into a Policy named name.
func ParsePolicy(name, s string) (Policy, error) {
	if s == "off" || s == "0" {
		return Policy{Name: name}, nil
	}
	q, w, ok := strings.Cut(s, "/")
	quota, err := strconv.Atoi(q)
	if !ok || err != nil || quota <= 0 {
		return Policy{}, fmt.Errorf("rate limit %q: want QUOTA/WINDOW, like 600/1m, or off", s)
	}
	window, err := time.ParseDuration(w)
	if err != nil || window < time.Second {
		return Policy{}, fmt.Errorf("rate limit %q: the window must be a duration of at least 1s, like 1m", s)
	}
	return Policy{Name: name, Quota: quota, Window: window}, nil
}

// DefaultMaxKeys bounds the keys a Limiter remembers.
const DefaultMaxKeys = 100_000

// Limiter keeps one bucket per key. A bucket left alone for a Window is
// full again, the same as a new one, so the Limiter forgets it: memory
// follows the keys seen in the last Window, and passes DefaultMaxKeys
// only by spent buckets, which refill within a Window.
type Limiter struct {
	policy  Policy
	every   rate.Limit
	clock   func() time.Time
	maxKeys int
	pruneAt int // sweep forgets keys when there are this many

	mu        sync.Mutex
	buckets   map[string]*bucket
	lastSweep time.Time
}

type bucket struct {
	lim  *rate.Limiter
	last time.Time
}

// New returns a Limiter for p; nil when p is off. clock nil means time.Now.
func New(p Policy, clock func() time.Time) *Limiter {
	if p.Off() {
		return nil
	}
	if clock == nil {
		clock = time.Now
	}
	return &Limiter{
		policy: p, every: rate.Limit(float64(p.Quota) / p.Window.Seconds()), clock: clock,
		maxKeys: DefaultMaxKeys, pruneAt: DefaultMaxKeys, buckets: map[string]*bucket{}, lastSweep: clock(),
	}
}

// Decision is what Allow decided, with what the headers say.
type Decision struct {
	Allowed bool
	// Remaining is what is left of the quota after this request.
	Remaining int
	// Reset is how long until the bucket is full again.
	Reset time.Duration
	// RetryAfter, when not Allowed, is how long until one request fits.
	RetryAfter time.Duration
	policy     Policy
}

// Name is the policy's name; a nil Limiter's is "".
func (l *Limiter) Name() string {
	if l == nil {
		return ""
	}
	return l.policy.Name
}

// Allow spends one request of key's budget, if it has one left.
func (l *Limiter) Allow(key string) Decision {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	b := l.buckets[key]
	if b == nil {
		b = &bucket{lim: rate.NewLimiter(l.every, l.policy.Quota)}
		l.buckets[key] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	delay := r.DelayFrom(now)
	if delay > 0 {
		r.CancelAt(now)
	}
	return l.decision(b.lim.TokensAt(now), delay)
}

// Peek is what Allow would decide for key, without spending anything: for
// a request that may yet turn out to owe the budget, such as one whose
// credentials are still to be checked. A key the Limiter does not know
// has its whole quota, and Peek does not make it one.
func (l *Limiter) Peek(key string) Decision {
	now := l.clock()
	l.mu.Lock()
	defer l.mu.Unlock()
	tokens := float64(l.policy.Quota)
	if b := l.buckets[key]; b != nil {
		tokens = b.lim.TokensAt(now)
	}
	var delay time.Duration
	if tokens < 1 {
		delay = time.Duration((1 - tokens) / float64(l.every) * float64(time.Second))
	}
	return l.decision(tokens, delay)
}

// decision says what a bucket holding tokens allows; delay, when
// positive, is the wait until one request fits.
func (l *Limiter) decision(tokens float64, delay time.Duration) Decision {
	d := Decision{policy: l.policy, Allowed: delay <= 0, RetryAfter: max(delay, 0)}
	d.Remaining = max(int(math.Floor(tokens)), 0)
	d.Reset = time.Duration((float64(l.policy.Quota) - tokens) / float64(l.every) * float64(time.Second))
	return d
}

// sweep forgets the buckets that are full again, once a Window. Past
// maxKeys it forgets, down to half of maxKeys, buckets that still have a
// request left, which can only give their keys more room, never less; a
// spent bucket is kept, so a flood of new keys cannot refill a key that
// is being refused. The next such pass waits until another maxKeys/2
// keys have come, so that a map of spent buckets is not walked on every
// request.
func (l *Limiter) sweep(now time.Time) {
	if now.Sub(l.lastSweep) >= l.policy.Window {
		l.lastSweep = now
		for k, b := range l.buckets {
			if now.Sub(b.last) >= l.policy.Window {
				delete(l.buckets, k)
			}
		}
	}
	if len(l.buckets) < l.pruneAt {
		return
	}
	for k, b := range l.buckets {
		if len(l.buckets) <= l.maxKeys/2 {
			break
		}
		if b.lim.TokensAt(now) >= 1 {
			delete(l.buckets, k)
		}
	}
	l.pruneAt = max(l.maxKeys, len(l.buckets)+l.maxKeys/2)
}

// Keys is how many keys the Limiter remembers.
func (l *Limiter) Keys() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}

// SetHeaders writes the RateLimit-Policy and RateLimit fields of d, and
// Retry-After when the request was refused.
func (d Decision) SetHeaders(h http.Header) {
	p := d.policy
	h.Set("RateLimit-Policy", fmt.Sprintf("%q;q=%d;w=%d", p.Name, p.Quota, int64(p.Window/time.Second)))
	h.Set("RateLimit", fmt.Sprintf("%q;r=%d;t=%d", p.Name, d.Remaining, seconds(d.Reset)))
	if !d.Allowed {
		h.Set("Retry-After", strconv.FormatInt(max(seconds(d.RetryAfter), 1), 10))
	}
}

// seconds rounds d up to whole seconds, as the headers count.
func seconds(d time.Duration) int64 {
	return int64(math.Ceil(d.Seconds()))
}
