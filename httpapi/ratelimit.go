package httpapi

import (
	"context"
	"crypto/sha256"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/internal/ratelimit"
)

// RateLimits are the API's request budgets, each per process
// (docs/operations.md, "Rate limits"). A Policy that is off limits nothing.
type RateLimits struct {
	// Organisation is each organisation's budget, shared by all its
	// access tokens.
	Organisation ratelimit.Policy
	// Operator is the operator token's budget.
	Operator ratelimit.Policy
	// Address is each client address's budget for getToken, for requests
	// without a bearer token, and for those whose token fails. The
	// portal's sign-in spends it too when cmd/disburse shares the limiter
	// (Config.Addresses).
	Address ratelimit.Policy
	// MemberExists is each organisation's budget for GET
	// /members/{msisdn}/exists, lower than Organisation's: the answer
	// discloses membership. It is spent instead of Organisation's.
	MemberExists ratelimit.Policy
	// Clock is the limiters' time; nil means time.Now.
	Clock func() time.Time
}

// DefaultRateLimits are budgets a real integration does not meet by
// accident: an organisation's calls are a handful per batch, and a token
// is fetched once an hour.
var DefaultRateLimits = RateLimits{
	Organisation: ratelimit.Policy{Name: limitOrganisation, Quota: 6000, Window: time.Minute},
	Operator:     ratelimit.Policy{Name: limitOperator, Quota: 6000, Window: time.Minute},
	Address:      ratelimit.Policy{Name: limitAddress, Quota: 60, Window: time.Minute},
	MemberExists: ratelimit.Policy{Name: limitMemberExists, Quota: 600, Window: time.Minute},
}

// The limits by name, as disburse_rate_limited_total's limit label shows
// them: DefaultRateLimits' policy names.
const (
	limitOrganisation = "organisation"
	limitOperator     = "operator"
	limitAddress      = "address"
	limitMemberExists = "member-exists"
)

// limiters are the RateLimits' limiters; a nil one limits nothing.
type limiters struct {
	org, operator, address, exists *ratelimit.Limiter
	// orgs is which organisation each token was last seen to act for,
	// so that a known token's request spends its organisation's budget
	// before the database is asked.
	orgs tokenOrgs
}

// newLimiters makes rl's limiters; address, when not nil, is the address
// budget's limiter, shared with the portal.
func newLimiters(rl RateLimits, address *ratelimit.Limiter) *limiters {
	if address == nil {
		address = ratelimit.New(rl.Address, rl.Clock)
	}
	return &limiters{
		org:      ratelimit.New(rl.Organisation, rl.Clock),
		operator: ratelimit.New(rl.Operator, rl.Clock),
		address:  address,
		exists:   ratelimit.New(rl.MemberExists, rl.Clock),
		orgs:     tokenOrgs{byToken: map[string]string{}, max: ratelimit.DefaultMaxKeys},
	}
}

// orgBudget is the limiter an organisation's request r spends: the lower
// one of membership checks, or the organisation's.
func (l *limiters) orgBudget(r *http.Request) *ratelimit.Limiter {
	path := r.URL.Path
	if r.Method == http.MethodGet && strings.HasPrefix(path, "/members/") && strings.HasSuffix(path, "/exists") {
		return l.exists
	}
	return l.org
}

// orgSpentKey marks a request whose organisation's budget rateLimit spent.
type orgSpentKey struct{}

// rateLimit spends what it can before the body is read or the database
// asked, says what is left in the RateLimit headers, and past the budget
// answers 429 rate_limited with Retry-After (docs/api.md section 2,
// docs/operations.md "Rate limits"):
//
//   - health checks and the API document spend nothing;
//   - getToken and a request without a bearer token spend the client
//     address's budget;
//   - on /admin/ a token that may be an operator's spends the operator
//     budget, any other the address's, and s.admin spends the address's
//     too when the token fails;
//   - an organisation's token the organisation has been seen with spends
//     the organisation's budget; any other is let through only while the
//     address has budget left, and s.org spends the address's budget if
//     the token fails, the organisation's if it passes.
func (s *server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r, refused := s.spendBefore(w, r)
		if refused != nil {
			s.refuse(w, r, refused)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// spendBefore spends what rateLimit can before the credentials are
// checked. It returns the limiter that refused r, or nil and r, marked
// when r spent its organisation's budget.
func (s *server) spendBefore(w http.ResponseWriter, r *http.Request) (*http.Request, *ratelimit.Limiter) {
	path := r.URL.Path
	token, ok := bearerToken(r)
	switch {
	case path == "/healthz" || path == "/readyz" || path == "/openapi.yaml":
		return r, nil
	case path == "/authentication/getToken" || !ok:
		return r, refusedBy(w, s.limits.address, clientaddr.Of(r), spend)
	case strings.HasPrefix(path, "/admin/"):
		if s.operators.Plausible(token) {
			return r, refusedBy(w, s.limits.operator, "operator", spend)
		}
		return r, refusedBy(w, s.limits.address, clientaddr.Of(r), spend)
	}
	orgID, known := s.limits.orgs.get(token)
	if !known {
		return r, refusedBy(w, s.limits.address, clientaddr.Of(r), hasRoom)
	}
	if budget := s.limits.orgBudget(r); !spend(w, budget, orgID) {
		return r, budget
	}
	return r.WithContext(context.WithValue(r.Context(), orgSpentKey{}, true)), nil
}

// refusedBy is l when check(w, l, key) finds no room, else nil.
func refusedBy(w http.ResponseWriter, l *ratelimit.Limiter, key string, check func(http.ResponseWriter, *ratelimit.Limiter, string) bool) *ratelimit.Limiter {
	if check(w, l, key) {
		return nil
	}
	return l
}

// tokenFailed spends the client address's budget for a request whose
// token did not authenticate, and forgets the token's organisation.
func (s *server) tokenFailed(w http.ResponseWriter, r *http.Request, token string) {
	s.limits.orgs.forget(token)
	spend(w, s.limits.address, clientaddr.Of(r))
}

// tokenPassed notes orgID as token's organisation and spends its budget,
// unless rateLimit did already; errRateLimited when it is spent.
func (s *server) tokenPassed(w http.ResponseWriter, r *http.Request, token, orgID string) error {
	s.limits.orgs.remember(token, orgID)
	if spent, _ := r.Context().Value(orgSpentKey{}).(bool); spent {
		return nil
	}
	if budget := s.limits.orgBudget(r); !spend(w, budget, orgID) {
		s.metrics.RateLimited(budget.Name())
		return errRateLimited
	}
	return nil
}

var errRateLimited = disburse.Errorf(codeRateLimited, "too many requests; retry after the number of seconds in Retry-After")

// refuse answers 429 rate_limited, counted by the limit that refused it.
func (s *server) refuse(w http.ResponseWriter, r *http.Request, by *ratelimit.Limiter) {
	s.metrics.RateLimited(by.Name())
	s.writeError(w, r, errRateLimited)
}

// spend spends one request of key's budget in l and writes its headers;
// false when the budget is spent. A nil l limits nothing.
func spend(w http.ResponseWriter, l *ratelimit.Limiter, key string) bool {
	if l == nil {
		return true
	}
	d := l.Allow(key)
	d.SetHeaders(w.Header())
	return d.Allowed
}

// hasRoom reports whether key has a request left in l, spending nothing;
// when it has none, it writes the headers that say so.
func hasRoom(w http.ResponseWriter, l *ratelimit.Limiter, key string) bool {
	if l == nil {
		return true
	}
	d := l.Peek(key)
	if !d.Allowed {
		d.SetHeaders(w.Header())
	}
	return d.Allowed
}

// tokenOrgs remembers which organisation a token acts for, by the token's
// hash (a long header costs no more memory than a short one). It only
// chooses whose budget a request spends: every request is still
// authenticated against the database. At most max tokens are kept;
// past that one is forgotten, which costs its next request a
// check of the address's budget instead.
type tokenOrgs struct {
	mu      sync.Mutex
	byToken map[string]string
	max     int
}

func tokenKey(token string) string {
	h := sha256.Sum256([]byte(token))
	return string(h[:])
}

func (t *tokenOrgs) get(token string) (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	org, ok := t.byToken[tokenKey(token)]
	return org, ok
}

func (t *tokenOrgs) remember(token, orgID string) {
	k := tokenKey(token)
	t.mu.Lock()
	defer t.mu.Unlock()
	for other := range t.byToken {
		if len(t.byToken) < t.max {
			break
		}
		delete(t.byToken, other)
	}
	t.byToken[k] = orgID
}

func (t *tokenOrgs) forget(token string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.byToken, tokenKey(token))
}
