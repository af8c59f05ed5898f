package httpapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/logs"
)

// hangingStore holds each write, once hang is set, until the request's
// context ends: a database slow enough for the client to give up first.
type hangingStore struct {
	featureStore
	hang    *atomic.Bool
	entered chan struct{}
	once    *sync.Once
}

func (s hangingStore) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	if !s.hang.Load() {
		return s.featureStore.Write(ctx, fn)
	}
	s.once.Do(func() { close(s.entered) })
	<-ctx.Done()
	return ctx.Err()
}

// jsonLines decodes a JSON log, one record a line.
func jsonLines(t *testing.T, text string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(text) {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, rec)
	}
	return out
}

// TestClientHangUpIs499: a client that hangs up while its request waits on
// the database is logged at INFO with status 499, not as an internal
// error, and counted under code="499", not as a 5xx (docs/operations.md,
// "Logs" and "Metrics").
func TestClientHangUpIs499(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		store := open(t)
		var logged logs.Buffer
		handler, err := logs.NewHandler(&logged, "json", "debug")
		if err != nil {
			t.Fatal(err)
		}
		reg := prometheus.NewRegistry()
		hs := hangingStore{featureStore: store, hang: new(atomic.Bool), entered: make(chan struct{}), once: new(sync.Once)}
		h := serveStore(t, hs, httpapi.Config{AdminToken: adminToken, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(),
			Log: slog.New(handler), Metrics: httpapi.NewMetrics(reg)})
		o := h.createOrg("Hang Ltd", false, "")

		hs.hang.Store(true)
		ctx, cancel := context.WithCancel(context.Background())
		req, _ := http.NewRequestWithContext(ctx, "POST", h.base+"/batches", strings.NewReader(`{"name":"gone"}`))
		req.Header.Set("Authorization", "Bearer "+o.token)
		req.Header.Set("X-Request-Id", "hangup-1")
		sent := make(chan error, 1)
		go func() {
			res, err := http.DefaultClient.Do(req)
			if err == nil {
				res.Body.Close()
			}
			sent <- err
		}()
		select {
		case <-hs.entered:
		case <-time.After(30 * time.Second):
			t.Fatal("the request never reached the store")
		}
		cancel()
		if err := <-sent; !errors.Is(err, context.Canceled) {
			t.Fatalf("client: %v, want its own cancellation", err)
		}
		hs.hang.Store(false)

		line := requestLine(t, &logged, "hangup-1")
		if line["status"] != float64(499) || line["level"] != "INFO" || line["route"] != "/batches" {
			t.Errorf("request line %v, want status 499 at INFO on /batches", line)
		}
		for _, rec := range jsonLines(t, logged.String()) {
			if rec["request_id"] == "hangup-1" && rec["level"] != "INFO" {
				t.Errorf("a %v line for the hung-up request: %v", rec["level"], rec)
			}
		}
		if n := requestCount(t, reg, "POST", "/batches", "499"); n != 1 {
			t.Errorf("code=499 on POST /batches: %v, want 1", n)
		}
		if n := requestCount(t, reg, "POST", "/batches", "500"); n != 0 {
			t.Errorf("code=500 on POST /batches: %v, want 0", n)
		}
	})
}

// requestLine waits, bounded, for the request line of the request with
// the X-Request-Id id in logged, a JSON log: it comes after the handler
// returns.
func requestLine(t *testing.T, logged *logs.Buffer, id string) map[string]any {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		for _, rec := range jsonLines(t, logged.String()) {
			if rec["msg"] == "request" && rec["request_id"] == id {
				return rec
			}
		}
	}
	t.Fatalf("no request line for the request %s:\n%s", id, logged.String())
	return nil
}

// requestCount is disburse_http_requests_total's value for the labels, read
// from reg (0: no such series).
func requestCount(t *testing.T, reg *prometheus.Registry, method, route, code string) float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != "disburse_http_requests_total" {
			continue
		}
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["method"] == method && labels["route"] == route && labels["code"] == code {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
