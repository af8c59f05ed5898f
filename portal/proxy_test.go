package portal_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/portal"
)

// TestSecureCookieBehindProxy: the session cookie is Secure when a trusted
// proxy says the browser came over HTTPS, and only then; an untrusted
// peer's X-Forwarded-Proto is ignored.
func TestSecureCookieBehindProxy(t *testing.T) {
	w := newWorld(t, openSQLite)
	for _, tc := range []struct {
		name, trusted, proto string
		secure               bool
	}{
		{"trusted proxy, https", "127.0.0.1/32", "https", true},
		{"trusted proxy, http", "127.0.0.1/32", "http", false},
		{"untrusted peer says https", "10.0.0.0/8", "https", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			proxies, err := clientaddr.ParseProxies(tc.trusted)
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(httpapi.Edge(portal.New(w.svc, w.office, portal.Config{AuthStore: w.store.Auth()}), proxies))
			defer srv.Close()
			form := url.Values{"email": {userEmail}, "password": {w.userPassword}}
			req, _ := http.NewRequest("POST", srv.URL+"/portal/signin", strings.NewReader(form.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Sec-Fetch-Site", "same-origin")
			req.Header.Set("X-Forwarded-Proto", tc.proto)
			req.Header.Set("X-Forwarded-For", "198.51.100.7")
			res, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			cookie := res.Header.Get("Set-Cookie")
			if res.StatusCode != http.StatusSeeOther || cookie == "" {
				t.Fatalf("sign-in: %d, cookie %q", res.StatusCode, cookie)
			}
			if got := strings.Contains(cookie, "; Secure"); got != tc.secure {
				t.Errorf("cookie %q: Secure %v, want %v", cookie, got, tc.secure)
			}
			if got := res.Header.Get("Strict-Transport-Security") != ""; got != tc.secure {
				t.Errorf("Strict-Transport-Security present %v, want %v", got, tc.secure)
			}
		})
	}
}

// TestSignInSpendsAddressBudget: every sign-in spends the client
// address's budget, the one the API's getToken spends, before the
// password is checked: past it even the right password gets 429, and so
// does the API.
func TestSignInSpendsAddressBudget(t *testing.T) {
	w := newWorld(t, openSQLite)
	addresses := ratelimit.New(ratelimit.Policy{Name: "address", Quota: 3, Window: time.Minute}, nil)
	srv := httptest.NewServer(httpapi.New(w.svc, httpapi.Config{IdempotencyStore: w.store.Idempotency(), AuthStore: w.store.Auth(), Addresses: addresses,
		Portal: portal.New(w.svc, w.office, portal.Config{AuthStore: w.store.Auth(), Addresses: addresses})}))
	defer srv.Close()
	b := w.browser(t)
	b.base, b.origin = srv.URL, srv.URL
	for i := range 3 {
		res := b.post("/portal/signin", url.Values{"email": {fmt.Sprintf("nobody-%d@example.org", i)}, "password": {"not the password"}})
		res.expect(t, http.StatusUnauthorized)
		if got := res.header.Get("RateLimit-Policy"); got != `"address";q=3;w=60` {
			t.Errorf("sign-in %d: RateLimit-Policy %q", i, got)
		}
	}
	res := b.post("/portal/signin", url.Values{"email": {userEmail}, "password": {w.userPassword}})
	res.expect(t, http.StatusTooManyRequests, "Too many sign-ins from your address")
	if res.header.Get("Retry-After") == "" {
		t.Error("429 without Retry-After")
	}
	req, _ := http.NewRequest("POST", srv.URL+"/authentication/getToken", strings.NewReader(`{"apiKey":"dak_x"}`))
	b.do(req).expect(t, http.StatusTooManyRequests, "rate_limited")
}
