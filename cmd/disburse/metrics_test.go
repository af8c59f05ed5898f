package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

const metricsAdmin = "metrics-test-admin-token-long-enough"

// TestMetricsScraped: serve with --metrics-listen answers /metrics there,
// not on the API's port, with the requests by route and exact code (the
// portal's too), the build, the database pools, the submit histograms and
// the money and payment counters (moved by one submit), the outbox, token
// and key gauges read from the store, the reversal sweep counters, and
// every series the alert rules and the dashboard in deploy/ name; /readyz
// answers 200 on the API's port.
func TestMetricsScraped(t *testing.T) {
	api, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", api, "--metrics-listen", metrics, "--admin-token", metricsAdmin,
			"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "m.db")})
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	get := func(url string) (int, string) {
		t.Helper()
		for range 100 {
			res, err := http.Get(url)
			if err != nil {
				time.Sleep(50 * time.Millisecond)
				continue
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(body)
		}
		t.Fatalf("%s does not answer", url)
		return 0, ""
	}
	if code, _ := get("http://" + api + "/healthz"); code != 200 {
		t.Fatalf("healthz: %d", code)
	}
	if code, _ := get("http://" + api + "/metrics"); code != 404 {
		t.Errorf("/metrics on the API's port: %d, want 404", code)
	}
	if code, _ := get("http://" + api + "/readyz"); code != 200 {
		t.Errorf("readyz: %d", code)
	}
	// One submit of two payments, for the submit series to move.
	h := httpClient{t: t, base: "http://" + api}
	key := h.orgKey(metricsAdmin)
	token := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
	batch := h.call("POST", "/batches", token, `{"name":"metrics"}`, 201)["id"].(string)
	h.call("POST", "/batches/"+batch+"/payments", token,
		`{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":10},{"msisdn":"254712345679","amount":5}]}`, 200)
	h.call("POST", "/batches/"+batch+"/submit", token, "", 200)
	if code, _ := get("http://" + api + "/portal/signin"); code != 200 {
		t.Errorf("portal sign-in page: %d", code)
	}
	code, text := get("http://" + metrics + "/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`disburse_http_requests_total{code="200",method="GET",route="/healthz"} 1`,
		`disburse_http_requests_total{code="404",method="GET",route="unmatched"} 1`,
		`disburse_http_request_duration_seconds_bucket{code="200",method="GET",route="/healthz",le="0.005"}`,
		`disburse_http_request_duration_seconds_count{code="200",method="GET",route="/portal/signin"} 1`,
		`disburse_rate_limited_total{limit="organisation"} 0`,
		`disburse_money_minor_units_total{currency="KES",kind="held"} 1500`,
		`disburse_payments_total{outcome="held"} 2`,
		`disburse_payments_total{outcome="settled"} 0`,
		`disburse_notification_attempts_total{channel="SMS",outcome="gave_up"} 0`,
		`disburse_webhook_attempts_total{outcome="retrying"} 0`,
		"disburse_webhook_endpoints_disabled_total 0\n",
		`disburse_build_info{goversion="go`,
		`go_sql_open_connections{db_name="`,
		`go_goroutines `,
		"disburse_submit_payments_count 1\n",
		"disburse_submit_payments_sum 2\n",
		`disburse_submit_payments_bucket{le="10"} 1`,
		"disburse_submit_duration_seconds_count 1\n",
		`disburse_notifications{status="PENDING"} `,
		`disburse_notifications{status="SENT"} `,
		`disburse_notifications{status="FAILED"} 0`,
		"disburse_notifications_oldest_pending_age_seconds ",
		`disburse_webhook_deliveries{status="PENDING"} 0`,
		`disburse_webhook_deliveries{status="DELIVERED"} 0`,
		`disburse_webhook_deliveries{status="FAILED"} 0`,
		"disburse_webhook_deliveries_oldest_pending_age_seconds 0\n",
		"disburse_tokens_live 1\n",
		"disburse_api_keys_active 1\n",
		"disburse_reversal_sweep_runs_total ",
		"disburse_reversal_sweep_failures_total 0\n",
		"disburse_reversal_legs_reversed_total 0\n",
		"disburse_writer_waits_total ", // SQLite's lane (the store here)
		"disburse_writer_wait_seconds_total ",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	for _, name := range deployedSeries(t) {
		if !regexp.MustCompile(`(?m)^` + name + `[{ ]`).MatchString(text) {
			t.Errorf("/metrics lacks %s, which deploy/ names", name)
		}
	}
}

func TestVersionCommand(t *testing.T) {
	var b strings.Builder
	printVersion(&b)
	if !strings.HasPrefix(b.String(), "disburse ") || !strings.Contains(b.String(), "revision ") {
		t.Errorf("version: %q", b.String())
	}
}
