package client_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/client"
	"github.com/disburse/disburse/internal/gen/stamp"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/internal/testserver"
)

// stampInputs are what client.gen.go is made from, as client/generate.go
// stamps them.
var stampInputs = []string{"../httpapi/openapi-2026-12-01.yaml", "oapi-codegen.yaml", "client.gen.go", "../go.mod:github.com/oapi-codegen/oapi-codegen/v2"}

// TestGeneratedCodeIsCurrent fails when client.gen.go, or what it is made
// from, changed since go generate stamped it; in the long suite, also when
// it is not what oapi-codegen makes of openapi-2026-12-01.yaml today.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	stamped, err := stamp.Of(stampInputs...)
	if err != nil {
		t.Fatal(err)
	}
	if kept, err := os.ReadFile("client.gen.sha256"); err != nil || !bytes.Equal(kept, stamped) {
		t.Fatalf("client.gen.go or its inputs changed since it was generated (%v): run go generate ./... and commit it", err)
	}
	testenv.SkipUnlessLong(t) // building oapi-codegen is the slow part
	// The same settings, writing elsewhere: the checked-in file stays as it is.
	dir := t.TempDir()
	out := filepath.Join(dir, "client.gen.go")
	config, err := os.ReadFile("oapi-codegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	config = bytes.Replace(config, []byte("output: client.gen.go"), []byte("output: "+out), 1)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), config, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "tool", "oapi-codegen", "-config", filepath.Join(dir, "config.yaml"), "../httpapi/openapi-2026-12-01.yaml")
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("oapi-codegen: %v\n%s", err, msg)
	}
	want, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile("client.gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("client.gen.go is stale: run go generate ./... and commit it")
	}
}

// recorder is a transport that notes each request and can answer the
// first few GETs with a 503 of its own, as a proxy in trouble would.
type recorder struct {
	mu       sync.Mutex
	requests []*http.Request
	fail503  int
	fail401  int
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.requests = append(r.requests, req.Clone(context.Background()))
	status := 0
	switch {
	case req.Method == "GET" && r.fail401 > 0:
		r.fail401--
		status = 401
	case req.Method == "GET" && r.fail503 > 0:
		r.fail503--
		status = 503
	}
	r.mu.Unlock()
	if status != 0 {
		return &http.Response{StatusCode: status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader("")), Request: req}, nil
	}
	return http.DefaultTransport.RoundTrip(req)
}

func (r *recorder) count(method, path string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, req := range r.requests {
		if req.Method == method && req.URL.Path == path {
			n++
		}
	}
	return n
}

func start(t *testing.T) *testserver.Server {
	t.Helper()
	srv, err := testserver.StartSQLite(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	return srv
}

func TestTokenRenewedBeforeExpiry(t *testing.T) {
	srv := start(t)
	rec := &recorder{}
	now := time.Now()
	var mu sync.Mutex
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	api, _ := client.New(srv.URL, srv.APIKey, client.Options{HTTPClient: &http.Client{Transport: rec}, Now: clock})
	for range 3 {
		if res, err := api.ListAccountsWithResponse(t.Context()); err != nil || res.JSON200 == nil {
			t.Fatalf("accounts: %v %s", err, res.Body)
		}
	}
	if n := rec.count("POST", "/authentication/getToken"); n != 1 {
		t.Fatalf("getToken sent %d times for three calls, want 1", n)
	}
	// The default lifetime is an hour: at 55 minutes the token is renewed.
	mu.Lock()
	now = now.Add(55 * time.Minute)
	mu.Unlock()
	if res, err := api.ListAccountsWithResponse(t.Context()); err != nil || res.JSON200 == nil {
		t.Fatalf("accounts: %v", err)
	}
	if n := rec.count("POST", "/authentication/getToken"); n != 2 {
		t.Errorf("getToken sent %d times, want 2 after 55 minutes", n)
	}
}

func TestSafeRequestsRetriedUnsafeNot(t *testing.T) {
	srv := start(t)
	rec := &recorder{fail503: 2}
	api, _ := client.New(srv.URL, srv.APIKey, client.Options{HTTPClient: &http.Client{Transport: rec}, Backoff: time.Millisecond})
	res, err := api.ListAccountsWithResponse(t.Context())
	if err != nil || res.JSON200 == nil {
		t.Fatalf("accounts after two 503s: %v %d", err, res.StatusCode())
	}
	if n := rec.count("GET", "/accounts"); n != 3 {
		t.Errorf("GET /accounts sent %d times, want 3", n)
	}

	// Retries give up after Options.Retries.
	rec.fail503 = 10
	api2, _ := client.New(srv.URL, srv.APIKey, client.Options{HTTPClient: &http.Client{Transport: rec}, Backoff: time.Millisecond, Retries: 2})
	if res, _ := api2.ListAccountsWithResponse(t.Context()); res.StatusCode() != 503 {
		t.Errorf("status = %d, want the last 503", res.StatusCode())
	}

	// An unsafe request carries an Idempotency-Key and is sent once.
	rec.fail503 = 0
	created, err := api.CreateBatchWithResponse(t.Context(), nil, client.NewBatch{Name: "n"})
	if err != nil || created.JSON201 == nil {
		t.Fatalf("create: %v", err)
	}
	rec.mu.Lock()
	last := rec.requests[len(rec.requests)-1]
	rec.mu.Unlock()
	if last.Method != "POST" || len(last.Header.Get("Idempotency-Key")) != 36 {
		t.Errorf("%s %s: Idempotency-Key %q", last.Method, last.URL.Path, last.Header.Get("Idempotency-Key"))
	}
}

func TestRevokedTokenRenewedOnce(t *testing.T) {
	srv := start(t)
	rec := &recorder{}
	api, _ := client.New(srv.URL, srv.APIKey, client.Options{HTTPClient: &http.Client{Transport: rec}})
	if _, err := api.ListAccountsWithResponse(t.Context()); err != nil {
		t.Fatal(err)
	}
	// The token is refused (revoked, or the server's clock ran ahead): the
	// client gets a new one and sends the request again, once.
	rec.fail401 = 1
	res, err := api.ListAccountsWithResponse(t.Context())
	if err != nil || res.JSON200 == nil {
		t.Fatalf("after the token went: %v %d", err, res.StatusCode())
	}
	if n := rec.count("POST", "/authentication/getToken"); n != 2 {
		t.Errorf("getToken sent %d times, want 2", n)
	}
}

// A wrong API key is an error that says so.
func TestWrongKey(t *testing.T) {
	srv := start(t)
	api, _ := client.New(srv.URL, "dak_wrong", client.Options{})
	_, err := api.ListAccountsWithResponse(t.Context())
	if err == nil || !strings.Contains(err.Error(), "401 unauthorized") {
		t.Errorf("err = %v, want a 401 unauthorized", err)
	}
}

// TestVersionPinned: every request names the newest version, and the
// answers are read in it (a page, date-times with Z).
func TestVersionPinned(t *testing.T) {
	srv := start(t)
	rec := &recorder{}
	api, _ := client.New(srv.URL, srv.APIKey, client.Options{HTTPClient: &http.Client{Transport: rec}})
	if _, err := api.CreateBatchWithResponse(t.Context(), nil, client.NewBatch{Name: "pinned"}); err != nil {
		t.Fatal(err)
	}
	res, err := api.ListBatchesWithResponse(t.Context(), &client.ListBatchesParams{})
	if err != nil || res.JSON200 == nil || len(res.JSON200.Data) != 1 || res.JSON200.HasMore {
		t.Fatalf("list: %v %d %s", err, res.StatusCode(), res.Body)
	}
	if res.HTTPResponse.Header.Get("Disburse-Version") != client.Version || !strings.Contains(string(res.Body), `Z"`) {
		t.Errorf("answer in %q: %s", res.HTTPResponse.Header.Get("Disburse-Version"), res.Body)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, r := range rec.requests {
		if got := r.Header.Get("Disburse-Version"); got != client.Version {
			t.Errorf("%s %s: Disburse-Version %q, want %q", r.Method, r.URL.Path, got, client.Version)
		}
	}
}
