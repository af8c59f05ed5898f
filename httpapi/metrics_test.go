package httpapi_test

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
)

// TestMetricsLabelsAreBounded: requests are counted by the route table's
// pattern, never by the path a client sent, and by the exact status code;
// unknown paths and methods share one label each.
func TestMetricsLabelsAreBounded(t *testing.T) {
	store := openSQLite(t)
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	reg := prometheus.NewRegistry()
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{Metrics: httpapi.NewMetrics(reg), Log: slog.New(slog.DiscardHandler),
		IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()}))
	defer srv.Close()
	for _, r := range []struct{ method, path string }{
		{"GET", "/healthz"}, {"GET", "/healthz"},
		{"GET", "/batches/0193a1b2-0000-7000-8000-000000000001"}, {"GET", "/batches/another-id"},
		{"GET", "/no/such/path/254712345678"}, {"BREW", "/healthz"},
	} {
		req, _ := http.NewRequest(r.method, srv.URL+r.path, nil)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
	}
	want := `
# HELP disburse_http_requests_total Requests answered, by route pattern, method and status code (499: the client hung up first).
# TYPE disburse_http_requests_total counter
disburse_http_requests_total{code="200",method="GET",route="/healthz"} 2
disburse_http_requests_total{code="401",method="GET",route="/batches/{id}"} 2
disburse_http_requests_total{code="404",method="GET",route="unmatched"} 1
disburse_http_requests_total{code="405",method="OTHER",route="unmatched"} 1
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "disburse_http_requests_total"); err != nil {
		t.Error(err)
	}
	if n := testutil.CollectAndCount(reg, "disburse_http_request_duration_seconds"); n != 4 {
		t.Errorf("%d duration series, want 4", n)
	}
}
