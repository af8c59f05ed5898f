package httpapi

import (
	"crypto/sha256"
	"net/http"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/ratelimit"
)

// RateLimits are the API's request budgets, each per process
// (docs/operations.md, "Rate limits"). A Policy that is off limits nothing.
type RateLimits struct {
	// Organisation is each organisation access token's budget.
	Organisation ratelimit.Policy
	// Operator is the operator token's budget.
	Operator ratelimit.Policy
	// Address is each client address's budget for getToken and for
	// requests without a bearer token. The portal's sign-in has limits of
	// its own (portal/limiter.go).
	Address ratelimit.Policy
	// MemberExists is each token's budget for GET /members/{msisdn}/exists,
	// lower than Organisation's: the answer discloses membership. It is
	// spent instead of Organisation's.
	MemberExists ratelimit.Policy
	// Clock is the limiters' time; nil means time.Now.
	Clock func() time.Time
}

// DefaultRateLimits are budgets a real integration does not meet by
// accident: an organisation's calls are a handful per batch, and a token
// is fetched once an hour.
var DefaultRateLimits = RateLimits{
	Organisation: ratelimit.Policy{Name: "organisation", Quota: 6000, Window: time.Minute},
	Operator:     ratelimit.Policy{Name: "operator", Quota: 6000, Window: time.Minute},
	Address:      ratelimit.Policy{Name: "address", Quota: 60, Window: time.Minute},
	MemberExists: ratelimit.Policy{Name: "member-exists", Quota: 600, Window: time.Minute},
}

// limiters are the RateLimits' limiters; a nil one limits nothing.
type limiters struct {
	org, operator, address, exists *ratelimit.Limiter
}

func newLimiters(rl RateLimits) *limiters {
	return &limiters{
		org:      ratelimit.New(rl.Organisation, rl.Clock),
		operator: ratelimit.New(rl.Operator, rl.Clock),
		address:  ratelimit.New(rl.Address, rl.Clock),
		exists:   ratelimit.New(rl.MemberExists, rl.Clock),
	}
}

// The limits by name, as disburse_rate_limited_total's limit label shows
// them: the RateLimits field each stands for.
const (
	limitOrganisation = "organisation"
	limitOperator     = "operator"
	limitAddress      = "address"
	limitMemberExists = "member-exists"
)

// pick says whose budget r spends: a token's (hashed, so that a long
// header costs no more memory than a short one), or the client address's,
// and the limit's name. Health checks and the API document spend none.
func (l *limiters) pick(r *http.Request) (*ratelimit.Limiter, string, string) {
	path := r.URL.Path
	if path == "/healthz" || path == "/readyz" || path == "/openapi.yaml" {
		return nil, "", ""
	}
	token, ok := bearerToken(r)
	if path == "/authentication/getToken" || !ok {
		return l.address, ratelimit.ClientAddress(r), limitAddress
	}
	h := sha256.Sum256([]byte(token))
	key := string(h[:])
	switch {
	case strings.HasPrefix(path, "/admin/"):
		return l.operator, key, limitOperator
	case r.Method == http.MethodGet && strings.HasPrefix(path, "/members/") && strings.HasSuffix(path, "/exists"):
		return l.exists, key, limitMemberExists
	default:
		return l.org, key, limitOrganisation
	}
}

// rateLimit spends the request's budget, says what is left in the
// RateLimit headers, and past the budget answers 429 rate_limited with
// Retry-After (docs/api.md section 2).
func (s *server) rateLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l, key, limit := s.limits.pick(r)
		if l == nil {
			next.ServeHTTP(w, r)
			return
		}
		d := l.Allow(key)
		d.SetHeaders(w.Header())
		if !d.Allowed {
			s.metrics.RateLimited(limit)
			s.writeError(w, r, disburse.Errorf(codeRateLimited, "too many requests; retry after the number of seconds in Retry-After"))
			return
		}
		next.ServeHTTP(w, r)
	})
}
