package httpapi_test

import (
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
)

// edgeServer serves the API inside Edge with the trusted proxies, an
// address budget of 2 a minute, and its log in the returned buffer.
func edgeServer(t *testing.T, trusted string) (string, *logs.Buffer) {
	t.Helper()
	proxies, err := clientaddr.ParseProxies(trusted)
	if err != nil {
		t.Fatal(err)
	}
	store := openSQLite(t)
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	logged := &logs.Buffer{}
	api := httpapi.New(svc, httpapi.Config{IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), Log: slog.New(slog.NewTextHandler(logged, nil)),
		RateLimits: httpapi.RateLimits{Address: ratelimit.Policy{Name: "address", Quota: 2, Window: time.Minute}}})
	srv := httptest.NewServer(httpapi.Edge(api, proxies))
	t.Cleanup(srv.Close)
	return srv.URL, logged
}

// fromProxy sends GET /batches without a token, as a proxy on 127.0.0.1
// that forwards xff ("" for none), and returns the status.
func fromProxy(t *testing.T, base, xff string) int {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "GET", base+"/batches", nil)
	if err != nil {
		t.Fatal(err)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// TestE2ETrustedProxies: from a trusted proxy the address budget is the
// forwarded client's, and the access log names that client; from any
// other peer X-Forwarded-For is ignored and the budget is the peer's.
func TestE2ETrustedProxies(t *testing.T) {
	t.Run("trusted", func(t *testing.T) {
		base, logged := edgeServer(t, "127.0.0.1/32")
		for range 2 {
			if got := fromProxy(t, base, "198.51.100.1"); got != http.StatusUnauthorized {
				t.Fatalf("198.51.100.1 within its budget: %d", got)
			}
		}
		if got := fromProxy(t, base, "203.0.113.66, 198.51.100.1"); got != http.StatusTooManyRequests {
			t.Errorf("198.51.100.1, a made-up hop before it, past its budget: %d, want 429", got)
		}
		if got := fromProxy(t, base, "198.51.100.2"); got != http.StatusUnauthorized {
			t.Errorf("another client behind the same proxy: %d, want its own budget (401)", got)
		}
		if !strings.Contains(logged.String(), "client=198.51.100.1") || !strings.Contains(logged.String(), "client=198.51.100.2") {
			t.Errorf("the access log does not name the forwarded clients:\n%s", logged)
		}
	})
	t.Run("untrusted", func(t *testing.T) {
		base, logged := edgeServer(t, "10.0.0.0/8")
		for range 2 {
			if got := fromProxy(t, base, "198.51.100.1"); got != http.StatusUnauthorized {
				t.Fatalf("within the peer's budget: %d", got)
			}
		}
		if got := fromProxy(t, base, "198.51.100.2"); got != http.StatusTooManyRequests {
			t.Errorf("a new X-Forwarded-For from an untrusted peer: %d, want 429 (the peer's budget)", got)
		}
		if strings.Contains(logged.String(), "198.51.100") || !strings.Contains(logged.String(), "client=127.0.0.1") {
			t.Errorf("the access log believed an untrusted X-Forwarded-For:\n%s", logged)
		}
	})
}

// TestE2ERequestIDOnEveryAnswer: the answers ServeMux writes itself, its
// redirects to a cleaned path or to the portal's slash, and the portal's
// pages carry X-Request-Id like the API's; the caller's sane id is kept
// through both layers of middleware. The 431 for headers past
// MaxHeaderBytes is written by net/http before any handler runs, so it
// carries none (docs/api.md section 2 says so).
func TestE2ERequestIDOnEveryAnswer(t *testing.T) { eachStore(t, testE2ERequestIDOnEveryAnswer) }

func testE2ERequestIDOnEveryAnswer(t *testing.T, open opener) {
	store := open(t)
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	office := backoffice.NewService(store)
	api := httpapi.New(svc, httpapi.Config{IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), Log: slog.New(slog.DiscardHandler),
		Portal: portal.New(svc, office, portal.Config{AuthStore: store.Auth()})})
	srv := httptest.NewUnstartedServer(httpapi.Edge(api, clientaddr.Proxies{}))
	srv.Config.MaxHeaderBytes = 4096
	srv.Start()
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string, header http.Header) *http.Response {
		t.Helper()
		req, err := http.NewRequestWithContext(t.Context(), "GET", srv.URL+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		maps.Copy(req.Header, header)
		res, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res
	}
	for _, tc := range []struct {
		path   string
		status int
	}{
		{"/batches/../healthz", http.StatusTemporaryRedirect}, // the outer ServeMux cleans the path
		{"//healthz", http.StatusTemporaryRedirect},
		{"/portal", http.StatusMovedPermanently},
		{"/portal/signin", http.StatusOK},
		{"/portal/nowhere", http.StatusNotFound},
		{"/healthz", http.StatusOK},
		{"/nowhere", http.StatusNotFound},
	} {
		res := get(tc.path, nil)
		if res.StatusCode != tc.status || res.Header.Get("X-Request-Id") == "" {
			t.Errorf("GET %s: %d, X-Request-Id %q; want %d with one", tc.path, res.StatusCode, res.Header.Get("X-Request-Id"), tc.status)
		}
	}
	if got := get("/healthz", http.Header{"X-Request-Id": {"caller-id-1"}}).Header.Values("X-Request-Id"); len(got) != 1 || got[0] != "caller-id-1" {
		t.Errorf("the caller's id through Edge and New: %q", got)
	}
	if got := get("/batches/../healthz", http.Header{"X-Request-Id": {"caller-id-2"}}).Header.Get("X-Request-Id"); got != "caller-id-2" {
		t.Errorf("the caller's id on a redirect: %q", got)
	}
	// net/http's own answer, before any handler.
	res := get("/healthz", http.Header{"X-Big": {strings.Repeat("x", 8192)}})
	if res.StatusCode != http.StatusRequestHeaderFieldsTooLarge || res.Header.Get("X-Request-Id") != "" {
		t.Errorf("headers past the limit: %d, X-Request-Id %q; net/http's 431 was expected to bypass the handlers", res.StatusCode, res.Header.Get("X-Request-Id"))
	}
}
