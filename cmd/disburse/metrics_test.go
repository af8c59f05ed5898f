package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"path/filepath"
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

// TestMetricsScraped: serve with --metrics-listen answers /metrics there,
// not on the API's port, with the requests by route, the build and the
// database pools.
func TestMetricsScraped(t *testing.T) {
	api, metrics := freeAddr(t), freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, []string{"--listen", api, "--metrics-listen", metrics,
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
	code, text := get("http://" + metrics + "/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	for _, want := range []string{
		`disburse_http_requests_total{method="GET",route="/healthz",status="2xx"} 1`,
		`disburse_http_request_duration_seconds_bucket{method="GET",route="/healthz",status="2xx",le="0.005"}`,
		`disburse_build_info{goversion="go`,
		`go_sql_open_connections{db_name="`,
		`go_goroutines `,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("/metrics lacks %q", want)
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
