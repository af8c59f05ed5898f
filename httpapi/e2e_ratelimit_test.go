package httpapi_test

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/sqlstore"
)

// TestE2ERateLimits: each budget is spent by its own requests (a token,
// the operator's token, a client address, a token's membership checks),
// says what is left in RateLimit-Policy and RateLimit, and past it answers
// 429 rate_limited with Retry-After, counted by its limit in
// disburse_rate_limited_total. The budgets live in the process, so the
// store does not matter: SQLite only.
func TestE2ERateLimits(t *testing.T) {
	setup := startDefaultOn(t, openSQLite) // unlimited, to make the organisations
	a := setup.createOrg("Acme", false, "")
	b := setup.createOrg("Other", false, "")
	policy := func(name string, quota int) ratelimit.Policy {
		return ratelimit.Policy{Name: name, Quota: quota, Window: time.Minute}
	}
	reg := prometheus.NewRegistry()
	h := startServerOf(t, setup, httpapi.Config{AdminToken: adminToken, Metrics: httpapi.NewMetrics(reg), RateLimits: httpapi.RateLimits{
		Organisation: policy("organisation", 3), Operator: policy("operator", 2),
		Address: policy("address", 2), MemberExists: policy("member-exists", 2),
	}})

	wantHeaders := func(what string, r response, status int, limit string) {
		t.Helper()
		if r.status != status {
			t.Fatalf("%s: status %d, want %d: %s", what, r.status, status, r.body)
		}
		if got := r.header.Get("RateLimit-Policy"); got != limit {
			t.Errorf("%s: RateLimit-Policy %q, want %q", what, got, limit)
		}
		if !strings.HasPrefix(r.header.Get("RateLimit"), strings.SplitN(limit, ";", 2)[0]+";r=") {
			t.Errorf("%s: RateLimit %q", what, r.header.Get("RateLimit"))
		}
	}
	refused := func(what string, r response, limit string) {
		t.Helper()
		wantHeaders(what, r, http.StatusTooManyRequests, limit)
		problem(t, r, http.StatusTooManyRequests, "rate_limited")
		if ra := r.header.Get("Retry-After"); ra == "" || ra == "0" {
			t.Errorf("%s: Retry-After %q", what, ra)
		}
	}

	// An organisation token: 3 a minute; the third leaves r=0.
	for i := range 3 {
		r := h.do("GET", "/batches", a.token, nil)
		wantHeaders("org call", r, 200, `"organisation";q=3;w=60`)
		if want := `"organisation";r=` + itoa(2-i) + ";t="; !strings.HasPrefix(r.header.Get("RateLimit"), want) {
			t.Errorf("call %d: RateLimit %q, want %s…", i, r.header.Get("RateLimit"), want)
		}
	}
	refused("org call past the budget", h.do("GET", "/batches", a.token, nil), `"organisation";q=3;w=60`)
	wantHeaders("another organisation", h.do("GET", "/batches", b.token, nil), 200, `"organisation";q=3;w=60`)

	// Membership checks have their own, lower budget, spent per token.
	for range 2 {
		wantHeaders("exists", h.do("GET", "/members/254712345678/exists", b.token, nil), 200, `"member-exists";q=2;w=60`)
	}
	refused("exists past its budget", h.do("GET", "/members/254712345678/exists", b.token, nil), `"member-exists";q=2;w=60`)
	wantHeaders("org call beside exists", h.do("GET", "/batches", b.token, nil), 200, `"organisation";q=3;w=60`)

	// The operator's token.
	for range 2 {
		wantHeaders("operator", h.do("GET", "/admin/notifications", adminToken, nil), 200, `"operator";q=2;w=60`)
	}
	refused("operator past the budget", h.do("GET", "/admin/notifications", adminToken, nil), `"operator";q=2;w=60`)

	// getToken, per client address (wrong keys spend it too).
	wantHeaders("getToken", h.do("POST", "/authentication/getToken", "", `{"apiKey":"`+a.key+`"}`), 200, `"address";q=2;w=60`)
	wantHeaders("getToken, wrong key", h.do("POST", "/authentication/getToken", "", `{"apiKey":"dak_wrong"}`), 401, `"address";q=2;w=60`)
	refused("getToken past the budget", h.do("POST", "/authentication/getToken", "", `{"apiKey":"`+a.key+`"}`), `"address";q=2;w=60`)

	// Health checks and the API document are never limited.
	for range 5 {
		if r := h.do("GET", "/healthz", "", nil); r.status != 200 || r.header.Get("RateLimit") != "" {
			t.Fatalf("healthz: %d %v", r.status, r.header)
		}
	}

	// Each refusal above, counted by the limit that refused it.
	want := `
# HELP disburse_rate_limited_total Requests refused for a spent budget, by the limit spent (docs/operations.md, "Rate limits").
# TYPE disburse_rate_limited_total counter
disburse_rate_limited_total{limit="address"} 1
disburse_rate_limited_total{limit="member-exists"} 1
disburse_rate_limited_total{limit="operator"} 1
disburse_rate_limited_total{limit="organisation"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "disburse_rate_limited_total"); err != nil {
		t.Error(err)
	}
	if n := requestCount(t, reg, "GET", "/members/{msisdn}/exists", "429"); n != 1 {
		t.Errorf("code=429 on /members/{msisdn}/exists: %v, want 1", n)
	}
}

// TestE2EOrganisationBudgetIsShared: every access token of an
// organisation spends the one organisation budget, so more tokens from
// one API key buy no more requests; membership checks likewise.
func TestE2EOrganisationBudgetIsShared(t *testing.T) { eachStore(t, testE2EOrganisationBudgetIsShared) }

func testE2EOrganisationBudgetIsShared(t *testing.T, open opener) {
	setup := startDefaultOn(t, open)
	a := setup.createOrg("Acme", false, "")
	b := setup.createOrg("Other", false, "")
	h := startServerOf(t, setup, httpapi.Config{AdminToken: adminToken, RateLimits: httpapi.RateLimits{
		Organisation: ratelimit.Policy{Name: "organisation", Quota: 3, Window: time.Minute},
		MemberExists: ratelimit.Policy{Name: "member-exists", Quota: 2, Window: time.Minute},
	}})
	tokens := make([]string, 5)
	for i := range tokens {
		tokens[i] = h.token(a.key)
	}
	var statuses []int
	for _, tok := range tokens {
		statuses = append(statuses, h.do("GET", "/batches", tok, nil).status)
	}
	if want := []int{200, 200, 200, 429, 429}; !slices.Equal(statuses, want) {
		t.Errorf("one call with each of five tokens of one organisation: %v, want %v", statuses, want)
	}
	r := h.do("GET", "/batches/"+disburse.NewID(), tokens[4], nil)
	problem(t, r, http.StatusTooManyRequests, "rate_limited")
	if got := r.header.Get("RateLimit-Policy"); got != `"organisation";q=3;w=60` {
		t.Errorf("GET /batches/{id} past the budget: RateLimit-Policy %q", got)
	}
	if got := h.do("GET", "/batches", b.token, nil).status; got != 200 {
		t.Errorf("another organisation: %d, want its own budget", got)
	}
	fresh := h.token(b.key)
	exists := func(tok string) int {
		return h.do("GET", "/members/254712345678/exists", tok, nil).status
	}
	if got := []int{exists(b.token), exists(fresh), exists(h.token(b.key))}; !slices.Equal(got, []int{200, 200, 429}) {
		t.Errorf("membership checks with three tokens of one organisation: %v, want [200 200 429]", got)
	}
}

// countingStore counts the lookups of a token in the database.
type countingStore struct {
	*sqlstore.Store
	lookups atomic.Int64
}

// Auth is the store's auth.Store, its lookups counted.
func (s *countingStore) Auth() auth.Store { return countingAuth{s.Store.Auth(), s} }

// countingAuth is a countingStore's auth.Store.
type countingAuth struct {
	auth.Store
	s *countingStore
}

func (a countingAuth) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	a.s.lookups.Add(1)
	return a.Store.TokenByHash(ctx, hash)
}

func (a countingAuth) TokenAndBatch(ctx context.Context, hash, id string) (auth.Token, disburse.Batch, error) {
	a.s.lookups.Add(1)
	return a.Store.TokenAndBatch(ctx, hash, id)
}

// TestE2EMadeUpTokensSpendTheAddress: a bearer token that fails spends the
// client address's budget, and once that is spent a token never seen is
// refused with 429 before the database is asked; a known good token keeps
// its organisation's budget.
func TestE2EMadeUpTokensSpendTheAddress(t *testing.T) {
	eachStore(t, testE2EMadeUpTokensSpendTheAddress)
}

func testE2EMadeUpTokensSpendTheAddress(t *testing.T, open opener) {
	store := &countingStore{Store: open(t)}
	h := serveStore(t, store, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), RateLimits: httpapi.RateLimits{
		Address:      ratelimit.Policy{Name: "address", Quota: 3, Window: time.Minute},
		Organisation: ratelimit.Policy{Name: "organisation", Quota: 100, Window: time.Minute},
	}})
	a := h.createOrg("Acme", false, "") // spends one of the address's three: getToken
	if got := h.do("GET", "/batches", a.token, nil).status; got != 200 {
		t.Fatalf("a good token: %d", got)
	}
	paths := []string{"/batches", "/batches/" + disburse.NewID(), "/members/254712345678/exists", "/admin/notifications"}
	for i, path := range paths[:2] {
		r := h.do("GET", path, "made-up-"+itoa(i), nil)
		problem(t, r, http.StatusUnauthorized, "unauthorized")
		if got := r.header.Get("RateLimit-Policy"); got != `"address";q=3;w=60` {
			t.Errorf("GET %s with a made-up token: RateLimit-Policy %q, want the address's", path, got)
		}
	}
	before := store.lookups.Load()
	for i, path := range paths {
		r := h.do("GET", path, "made-up-again-"+itoa(i), nil)
		problem(t, r, http.StatusTooManyRequests, "rate_limited")
		if got := r.header.Get("RateLimit-Policy"); got != `"address";q=3;w=60` {
			t.Errorf("GET %s past the address's budget: RateLimit-Policy %q", path, got)
		}
	}
	if n := store.lookups.Load() - before; n != 0 {
		t.Errorf("%d token lookups for requests refused by the address's budget, want 0", n)
	}
	if r := h.do("GET", "/batches", a.token, nil); r.status != 200 || !strings.HasPrefix(r.header.Get("RateLimit"), `"organisation"`) {
		t.Errorf("a known good token from the same address: %d %q", r.status, r.header.Get("RateLimit"))
	}
}

// TestE2ENewTokenAfterAddressBudget: a token fetched with the last of the
// address's budget is not held back by it: its organisation is known
// from the getToken that made it.
func TestE2ENewTokenAfterAddressBudget(t *testing.T) {
	setup := startDefaultOn(t, openSQLite)
	a := setup.createOrg("Acme", false, "")
	h := startServerOf(t, setup, httpapi.Config{AdminToken: adminToken, RateLimits: httpapi.RateLimits{
		Address: ratelimit.Policy{Name: "address", Quota: 2, Window: time.Minute},
	}})
	tokens := []string{h.token(a.key), h.token(a.key)}
	problem(t, h.do("POST", "/authentication/getToken", "", `{"apiKey":"`+a.key+`"}`), http.StatusTooManyRequests, "rate_limited")
	for _, tok := range tokens {
		if r := h.do("GET", "/batches", tok, nil); r.status != 200 {
			t.Errorf("a new token's first request after the address's budget is spent: %d %s", r.status, r.body)
		}
	}
}
