package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/ratelimit"
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
