package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/idempotency"
)

// pingStore answers Ping only; the routes tested here reach nothing else.
type pingStore struct {
	disburse.Store
	err error
}

func (s pingStore) Ping(context.Context) error { return s.err }

// noKeys is an Idempotency-Key store the routes tested here never reach.
type noKeys struct{ idempotency.Store }

// noAuth is an auth store the routes tested here never reach.
type noAuth struct{ auth.Store }

func newTestHandler(t *testing.T, pingErr error, logs *bytes.Buffer) http.Handler {
	t.Helper()
	svc := disburse.NewService(pingStore{err: pingErr})
	return New(svc, Config{AdminToken: "admin", MaxBodyBytes: 100, Log: slog.New(slog.NewTextHandler(logs, nil)), IdempotencyStore: noKeys{}, AuthStore: noAuth{}})
}

func serve(h http.Handler, r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

func TestRequestID(t *testing.T) {
	h := newTestHandler(t, nil, new(bytes.Buffer))
	for _, tt := range []struct {
		sent string
		kept bool
	}{
		{"abc-123_X.y", true},
		{strings.Repeat("a", 64), true},
		{strings.Repeat("a", 65), false},
		{"", false},
		{"has space", false},
		{"new\nline", false},
		{"ünï", false},
		{"a/b", false},
	} {
		r := httptest.NewRequest("GET", "/healthz", nil)
		if tt.sent != "" {
			r.Header["X-Request-Id"] = []string{tt.sent}
		}
		got := serve(h, r).Header().Get("X-Request-Id")
		switch {
		case tt.kept && got != tt.sent:
			t.Errorf("sent %q, got %q: want it kept", tt.sent, got)
		case !tt.kept && (got == tt.sent || !saneRequestID(got)):
			t.Errorf("sent %q, got %q: want a new sane id", tt.sent, got)
		}
	}
}

func TestHealthz(t *testing.T) {
	w := serve(newTestHandler(t, nil, new(bytes.Buffer)), httptest.NewRequest("GET", "/healthz", nil))
	if w.Code != 200 || w.Body.String() != `{"status":"ok"}` {
		t.Errorf("healthy: %d %s", w.Code, w.Body)
	}
	var logs bytes.Buffer
	w = serve(newTestHandler(t, errors.New("dial tcp: refused"), &logs), httptest.NewRequest("GET", "/healthz", nil))
	if w.Code != 503 || !strings.Contains(w.Body.String(), `"code":"unavailable"`) || strings.Contains(w.Body.String(), "refused") {
		t.Errorf("unhealthy: %d %s", w.Code, w.Body)
	}
}

// TestUnroutedIsAProblem: ServeMux's plain-text 404 and 405 become problems.
func TestUnroutedIsAProblem(t *testing.T) {
	h := newTestHandler(t, nil, new(bytes.Buffer))
	w := serve(h, httptest.NewRequest("GET", "/nowhere", nil))
	checkProblem(t, w, 404, "not_found")

	w = serve(h, httptest.NewRequest("PATCH", "/batches", nil))
	checkProblem(t, w, 405, "method_not_allowed")
	if got := w.Header().Get("Allow"); got != "GET, HEAD, POST" {
		t.Errorf("Allow = %q", got)
	}
}

func TestBodyLimit(t *testing.T) {
	h := newTestHandler(t, nil, new(bytes.Buffer))
	// Declared too long: refused before any handler or credential check.
	r := httptest.NewRequest("POST", "/batches", strings.NewReader(strings.Repeat("x", 101)))
	checkProblem(t, serve(h, r), 413, "payload_too_large")
	// Undeclared length: refused when read.
	r = httptest.NewRequest("POST", "/authentication/getToken", strings.NewReader(`{"apiKey":"`+strings.Repeat("x", 200)+`"}`))
	r.ContentLength = -1
	checkProblem(t, serve(h, r), 413, "payload_too_large")
}

func TestPanicIsInternal(t *testing.T) {
	var logs bytes.Buffer
	s := testServer(&logs)
	h := chain(s.handle(func(http.ResponseWriter, *http.Request) error { panic("secret detail") }),
		withRequestID, s.accessLog, s.recoverPanics)
	r := httptest.NewRequest("GET", "/x", nil)
	r.Header.Set("X-Request-Id", "req-7")
	w := serve(h, r)
	checkProblem(t, w, 500, "internal")
	if strings.Contains(w.Body.String(), "secret") || !strings.Contains(w.Body.String(), `"requestId":"req-7"`) {
		t.Errorf("body %s: want the request id and no detail", w.Body)
	}
	if !strings.Contains(logs.String(), "secret detail") || !strings.Contains(logs.String(), "status=500") {
		t.Errorf("log lacks the panic or the access line: %s", logs.String())
	}
}

// TestAuthFailures: without credentials, no organisation or operator route
// answers anything but 401 with WWW-Authenticate (no store needed to tell).
func TestAuthFailures(t *testing.T) {
	h := newTestHandler(t, nil, new(bytes.Buffer))
	noAdmin := New(disburse.NewService(pingStore{}), Config{IdempotencyStore: noKeys{}, AuthStore: noAuth{}})
	for _, rt := range (&server{}).routes() {
		path := strings.NewReplacer("{id}", disburse.NewID(), "{msisdn}", "254712345678").Replace(rt.path)
		public := rt.path == "/healthz" || rt.path == "/readyz" || rt.path == "/openapi.yaml" || rt.path == "/authentication/getToken"
		if public {
			continue
		}
		for _, auth := range []string{"", "Bearer", "Bearer ", "Basic YWRtaW46YWRtaW4=", "admin", "Bearer wrong"} {
			if !strings.HasPrefix(rt.path, "/admin") && auth == "Bearer wrong" {
				continue // a token to look up: that needs the store, see e2e
			}
			r := httptest.NewRequest(rt.method, path, nil)
			if auth != "" {
				r.Header.Set("Authorization", auth)
			}
			checkProblem(t, serve(h, r), 401, "unauthorized")
		}
		if strings.HasPrefix(rt.path, "/admin") {
			r := httptest.NewRequest(rt.method, path, nil)
			r.Header.Set("Authorization", "Bearer admin")
			if w := serve(h, r); w.Code == 401 {
				t.Errorf("%s %s: the admin token is refused", rt.method, path)
			}
			// No admin token configured: even an empty bearer gets nothing.
			for _, auth := range []string{"Bearer admin", "Bearer  ", "Bearer"} {
				r := httptest.NewRequest(rt.method, path, nil)
				r.Header.Set("Authorization", auth)
				checkProblem(t, serve(noAdmin, r), 401, "unauthorized")
			}
		}
	}
}

func TestOpenAPIServed(t *testing.T) {
	w := serve(newTestHandler(t, nil, new(bytes.Buffer)), httptest.NewRequest("GET", "/openapi.yaml", nil))
	if w.Code != 200 || w.Header().Get("Content-Type") != "application/yaml" || !bytes.Equal(w.Body.Bytes(), openAPI) {
		t.Errorf("GET /openapi.yaml: %d %q", w.Code, w.Header().Get("Content-Type"))
	}
}

// checkProblem asserts a problem+json response with status and code.
func checkProblem(t *testing.T, w *httptest.ResponseRecorder, status int, code disburse.Code) {
	t.Helper()
	if w.Code != status {
		t.Errorf("status = %d, want %d (%s)", w.Code, status, w.Body)
	}
	if ct := w.Header().Get("Content-Type"); ct != "application/problem+json" {
		t.Errorf("Content-Type = %q", ct)
	}
	if w.Header().Get("X-Request-Id") == "" {
		t.Errorf("no X-Request-Id")
	}
	var p map[string]any
	if err := json.Unmarshal(w.Body.Bytes(), &p); err != nil {
		t.Fatalf("body %s: %v", w.Body, err)
	}
	want := map[string]any{"type": "about:blank", "title": http.StatusText(status), "status": float64(status), "code": string(code)}
	got := map[string]any{"type": p["type"], "title": p["title"], "status": p["status"], "code": p["code"]}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problem (-want +got):\n%s", diff)
	}
	if d, _ := p["detail"].(string); d == "" {
		t.Errorf("problem without detail: %s", w.Body)
	}
	if status == 401 && w.Header().Get("WWW-Authenticate") != "Bearer" {
		t.Errorf("401 without WWW-Authenticate: Bearer")
	}
}
