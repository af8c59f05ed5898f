package portal_test

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/time/rate"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
)

// TestPortalRequestsLoggedAndCounted: the portal's requests go through the
// API's request log and its metrics, by the portal's route patterns
// (never the path), and a sign-in the limits refuse is counted as
// limit="portal-signin" (docs/operations.md, "Logs" and "Metrics"). The
// store does not matter: SQLite only.
func TestPortalRequestsLoggedAndCounted(t *testing.T) {
	store := openSQLite(t)
	svc, office := disburse.NewService(store), backoffice.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	var logged logs.Buffer
	log := slog.New(slog.NewJSONHandler(&logged, nil))
	reg := prometheus.NewRegistry()
	metrics := httpapi.NewMetrics(reg)
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(), Log: log, Metrics: metrics,
		Portal: portal.New(svc, office, portal.Config{Log: log, AuthStore: store.Auth(), RateLimited: metrics.RateLimited,
			SignInLimits: portal.Limits{PerEmail: rate.Every(time.Hour), EmailBurst: 1, PerClient: rate.Every(time.Hour), ClientBurst: 10}})}))
	defer srv.Close()
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	send := func(method, path string, form url.Values, want int) {
		t.Helper()
		var res *http.Response
		var err error
		if form == nil {
			req, _ := http.NewRequest(method, srv.URL+path, nil)
			res, err = client.Do(req)
		} else {
			res, err = client.PostForm(srv.URL+path, form)
		}
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Fatalf("%s %s: %d, want %d", method, path, res.StatusCode, want)
		}
	}
	send("GET", "/portal/signin", nil, 200)
	send("GET", "/portal/payments/254712345678", nil, http.StatusSeeOther) // not signed in
	wrong := url.Values{"email": {"nobody@example.org"}, "password": {"wrong"}}
	send("POST", "/portal/signin", wrong, http.StatusUnauthorized)
	send("POST", "/portal/signin", wrong, http.StatusTooManyRequests)

	var routes []string
	for line := range strings.Lines(logged.String()) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec["msg"] == "request" {
			routes = append(routes, rec["method"].(string)+" "+rec["route"].(string))
			if rec["request_id"] == "" {
				t.Errorf("request line without an id: %v", rec)
			}
		}
	}
	want := []string{"GET /portal/signin", "GET /portal/payments/{id}", "POST /portal/signin", "POST /portal/signin"}
	if strings.Join(routes, ", ") != strings.Join(want, ", ") {
		t.Errorf("request lines %q, want %q", routes, want)
	}
	if strings.Contains(logged.String(), "254712345678") {
		t.Error("the log holds the path's number")
	}

	scrape := httptest.NewRecorder()
	promhttp.HandlerFor(reg, promhttp.HandlerOpts{}).ServeHTTP(scrape, httptest.NewRequest("GET", "/metrics", nil))
	for _, series := range []string{
		`disburse_http_request_duration_seconds_count{code="200",method="GET",route="/portal/signin"} 1`,
		`disburse_http_request_duration_seconds_count{code="303",method="GET",route="/portal/payments/{id}"} 1`,
		`disburse_http_request_duration_seconds_count{code="401",method="POST",route="/portal/signin"} 1`,
		`disburse_http_requests_total{code="429",method="POST",route="/portal/signin"} 1`,
		`disburse_rate_limited_total{limit="portal-signin"} 1`,
	} {
		if !strings.Contains(scrape.Body.String(), series+"\n") {
			t.Errorf("the metrics lack %s", series)
		}
	}
}
