package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

// TestCommand builds the real binary once and runs its commands on
// temporary SQLite files, the way an operator would.
func TestCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	tests := []struct {
		name string
		run  func(t *testing.T, bin string)
	}{
		{"Settings", testSettings},
		{"ServeHealthAndSIGTERM", testServeHealthAndSIGTERM},
		{"Migrate", testMigrate},
		{"Demo", testDemo},
		{"StartupEdgeCases", testStartupEdgeCases},
		{"SlowAndIdleClients", testSlowAndIdleClients},
		{"OrgCreate", testOrgCreate},
		{"TLS", testTLS},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, bin)
		})
	}
}

// testSettings: settings by DISBURSE_* variable and by flag, the flag
// winning; a bad one stops the start, naming it; -h shows the defaults.
func testSettings(t *testing.T, bin string) {
	db := "sqlite:" + filepath.Join(t.TempDir(), "d.db")
	// A bad variable whose flag is not given stops the start, naming it.
	_, stderr, code := runBinary(t, bin, []string{"DISBURSE_TOKEN_TTL=soon"}, "serve", "--listen", "127.0.0.1:0", "--database-url", db)
	if code == 0 || !strings.Contains(stderr, "DISBURSE_TOKEN_TTL") {
		t.Errorf("bad DISBURSE_TOKEN_TTL: exit %d, stderr %q; want an error naming it", code, stderr)
	}
	// -h shows the real defaults and exits 0.
	_, stderr, code = runBinary(t, bin, []string{"DISBURSE_ADMIN_TOKEN=secret"}, "serve", "-h")
	if code != 0 || !strings.Contains(stderr, "(default 1h0m0s)") || !strings.Contains(stderr, "(default 1000000.00)") || strings.Contains(stderr, "secret") {
		t.Errorf("serve -h: exit %d:\n%s", code, stderr)
	}

	// By variable: listen address, token lifetime, admin token, limits.
	// By flag, winning over its variable: the admin token, over a bad
	// DISBURSE_MAX_AMOUNT, and the token lifetime.
	s := startServe(t, bin, []string{
		"DISBURSE_LISTEN=127.0.0.1:0", "DISBURSE_DATABASE_URL=" + db,
		"DISBURSE_ADMIN_TOKEN=admin-token-from-the-variable", "DISBURSE_TOKEN_TTL=2m",
		"DISBURSE_MAX_AMOUNT=1.001", "DISBURSE_MAX_PAYMENTS_PER_REQUEST=2", "DISBURSE_MAX_BODY_BYTES=2000",
	}, "serve", "--admin-token", "admin-token-from-the-flag", "--max-amount", "10")
	h := httpClient{t: t, base: s.base}
	h.call("GET", "/admin/ledger/check", "admin-token-from-the-variable", "", 401)
	h.call("GET", "/admin/ledger/check", "admin-token-from-the-flag", "", 200)
	key := h.orgKey("admin-token-from-the-flag")
	tok := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)
	if tok["expiresIn"] != 120.0 {
		t.Errorf("expiresIn %v, want 120 from DISBURSE_TOKEN_TTL", tok["expiresIn"])
	}
	token := tok["accessToken"].(string)
	batch := h.call("POST", "/batches", token, `{"name":"limits"}`, 201)["id"].(string)
	add := "/batches/" + batch + "/payments"
	h.call("POST", add, token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":10.01}]}`, 400)
	h.call("POST", add, token, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":10}]}`, 200)
	three := strings.Repeat(`{"msisdn":"254712345678","amount":1},`, 3)
	h.call("POST", add, token, `{"clearExisting":false,"payments":[`+strings.TrimSuffix(three, ",")+`]}`, 400)
	h.call("POST", add, token, `{"clearExisting":false,"payments":[],"x":"`+strings.Repeat("x", 2000)+`"}`, 413)
	s.stop(t)
}

// testServeHealthAndSIGTERM: serve answers, and exits 0 on SIGTERM once
// what it was doing is done.
func testServeHealthAndSIGTERM(t *testing.T, bin string) {
	s := startServe(t, bin, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "d.db"))
	h := httpClient{t: t, base: s.base}
	if got := h.call("GET", "/healthz", "", "", 200); got["status"] != "ok" {
		t.Errorf("healthz %v", got)
	}
	key, _ := s.demoCredentials(t)
	token := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
	batch := h.call("POST", "/batches", token, `{"name":"in flight"}`, 201)["id"].(string)

	// A request whose handler is running (it has asked for the body:
	// the 100 Continue) when SIGTERM arrives, and whose body is sent
	// only after: the server must finish it, then exit 0.
	const n = 2000
	body, bodyW := io.Pipe()
	continued := make(chan struct{})
	ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{Got100Continue: func() { close(continued) }})
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "POST", s.base+"/batches/"+batch+"/payments", body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Expect", "100-continue")
	type result struct {
		status int
		body   []byte
		err    error
	}
	done := make(chan result, 1)
	go func() {
		client := &http.Client{Transport: &http.Transport{ExpectContinueTimeout: time.Minute}}
		resp, err := client.Do(req)
		if err != nil {
			done <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		done <- result{resp.StatusCode, b, err}
	}()
	select {
	case <-continued:
	case r := <-done:
		t.Fatalf("answered before reading the body: %d %s %v", r.status, r.body, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("no 100 Continue")
	}
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() {
		var b bytes.Buffer
		b.WriteString(`{"clearExisting":false,"payments":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"msisdn":"2547%08d","amount":10.00}`, 10000000+i)
		}
		b.WriteString(`]}`)
		_, err := bodyW.Write(b.Bytes())
		bodyW.CloseWithError(err)
	}()
	r := <-done
	if r.err != nil || r.status != 200 {
		t.Fatalf("request in flight at SIGTERM: %d %s %v\n%s", r.status, r.body, r.err, s.log.String())
	}
	var added struct{ Payments []json.RawMessage }
	if err := json.Unmarshal(r.body, &added); err != nil || len(added.Payments) != n {
		t.Errorf("added %d payments (%v), want %d", len(added.Payments), err, n)
	}
	s.wait(t)
}

// testMigrate: migrate makes the tables, and changes nothing the second
// time.
func testMigrate(t *testing.T, bin string) {
	file := filepath.Join(t.TempDir(), "m.db")
	_, stderr, code := runBinary(t, bin, []string{"DISBURSE_DATABASE_URL=sqlite:" + file}, "migrate")
	if code != 0 {
		t.Fatalf("migrate: exit %d\n%s", code, stderr)
	}
	for _, table := range []string{"organisations", "accounts", "api_keys", "batches", "payments", "transfers"} {
		if n := count(t, file, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", table); n != 1 {
			t.Errorf("table %s: %d", table, n)
		}
	}
	if _, _, code := runBinary(t, bin, nil, "migrate", "--database-url", "sqlite:"+file); code != 0 {
		t.Errorf("second migrate: exit %d", code)
	}
}

// testDemo: serve --demo makes a funded organisation and prints its
// credentials.
func testDemo(t *testing.T, bin string) {
	s := startServe(t, bin, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "d.db"))
	key, admin := s.demoCredentials(t)
	h := httpClient{t: t, base: s.base}
	token := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)["accessToken"].(string)
	accounts := h.callList("GET", "/accounts", token, 200)
	if len(accounts) == 0 || accounts[0]["balance"] != 1000000.0 {
		t.Errorf("demo accounts %v, want 1,000,000.00 of float", accounts)
	}
	if check := h.call("GET", "/admin/ledger/check", admin, "", 200); check["ok"] != true {
		t.Errorf("ledger check %v", check)
	}
	s.stop(t)
}

// testOrgCreate: org create refuses bad input before it writes anything,
// and makes an organisation whose printed API key works.
func testOrgCreate(t *testing.T, bin string) {
	file := filepath.Join(t.TempDir(), "o.db")
	db := "sqlite:" + file
	if _, stderr, code := runBinary(t, bin, nil, "migrate", "--database-url", db); code != 0 {
		t.Fatalf("migrate: %s", stderr)
	}
	// A bad deposit is refused before anything is created, naming the flag.
	for _, deposit := range []string{"1.001", "-5", "1e3", "lots"} {
		_, stderr, code := runBinary(t, bin, nil, "org", "create", "--name", "Bad Ltd", "--deposit", deposit, "--database-url", db)
		if code == 0 || !strings.Contains(stderr, "--deposit") {
			t.Errorf("--deposit %s: exit %d, stderr %q", deposit, code, stderr)
		}
	}
	// So is a missing name, naming the field.
	if _, stderr, code := runBinary(t, bin, nil, "org", "create", "--deposit", "5", "--database-url", db); code == 0 || !strings.Contains(stderr, "Name") {
		t.Errorf("no --name: exit %d, stderr %q", code, stderr)
	}
	for _, table := range []string{"organisations", "accounts WHERE kind <> 'FUNDING'", "api_keys", "transfers"} {
		if n := count(t, file, "SELECT count(*) FROM "+table); n != 0 {
			t.Errorf("%d rows in %s after refused org create", n, table)
		}
	}

	stdout, stderr, code := runBinary(t, bin, []string{"DISBURSE_DATABASE_URL=" + db}, "org", "create", "--name", "Acme", "--deposit", "2500.50")
	if code != 0 {
		t.Fatalf("org create: exit %d\n%s", code, stderr)
	}
	m := regexp.MustCompile(`api key\s+(\S+)`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no api key in %q", stdout)
	}
	s := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", db)
	h := httpClient{t: t, base: s.base}
	token := h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+m[1]+`"}`, 200)["accessToken"].(string)
	if accounts := h.callList("GET", "/accounts", token, 200); len(accounts) == 0 || accounts[0]["balance"] != 2500.5 {
		t.Errorf("accounts %v, want 2500.50 of float", accounts)
	}
	s.stop(t)

	// --sandbox: a test key, and a float from the sandbox's own funding
	// (docs/sandbox.md); the ledger audits clean beside the live one.
	stdout, stderr, code = runBinary(t, bin, []string{"DISBURSE_DATABASE_URL=" + db}, "org", "create", "--name", "Test", "--sandbox", "--deposit", "10")
	if code != 0 || !strings.Contains(stdout, "(Test, sandbox)") || !regexp.MustCompile(`api key\s+dak_test_`).MatchString(stdout) {
		t.Fatalf("org create --sandbox: exit %d\n%s%s", code, stdout, stderr)
	}
	if n := count(t, file, "SELECT count(*) FROM accounts WHERE kind = 'FUNDING' AND sandbox_organisation_id IS NOT NULL AND balance = -1000"); n != 1 {
		t.Errorf("%d sandbox funding accounts that paid its float, want 1", n)
	}
}

// buildBinary builds the disburse binary into a temporary directory, once
// for the whole run.
func buildBinary(t *testing.T) string {
	t.Helper()
	built.once.Do(func() {
		dir, err := os.MkdirTemp("", "disburse-test-bin-")
		if err != nil {
			built.err = err
			return
		}
		built.dir, built.bin = dir, filepath.Join(dir, "disburse")
		if out, err := exec.Command("go", "build", "-o", built.bin, ".").CombinedOutput(); err != nil {
			built.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatalf("build: %v", built.err)
	}
	return built.bin
}

// built is the binary the tests build, once: linking it is the slow part
// of every test that runs it.
var built struct {
	once     sync.Once
	dir, bin string
	err      error
}

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// commandEnv is this process's environment without DISBURSE_* variables,
// which a developer's shell may set, plus env.
func commandEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "DISBURSE_") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// runBinary runs a command that ends by itself and returns its output and exit code.
func runBinary(t *testing.T, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinaryAt(t, "", time.Minute, bin, env, args...)
}

// runBinaryAt runs a command in dir (the test's own when empty), killed
// after limit, and returns its output and exit code.
func runBinaryAt(t *testing.T, dir string, limit time.Duration, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = commandEnv(env)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("%v: %v", args, err)
	}
	return o.String(), e.String(), code
}

// serveProcess is a running `disburse serve`.
type serveProcess struct {
	cmd    *exec.Cmd
	base   string
	stdout string // the file the process writes its stdout to
	done   chan error
	log    lockedLog // its stderr, shown when something fails
}

// lockedLog collects lines from the reader goroutine for the test.
type lockedLog struct {
	mu  sync.Mutex
	buf strings.Builder
}

func (l *lockedLog) add(line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.WriteString(line + "\n")
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

var servingLine = regexp.MustCompile(`msg="disburse serving" addr=(\S+)`)

// startServe starts the binary and waits for its "disburse serving" line.
func startServe(t *testing.T, bin string, env []string, args ...string) *serveProcess {
	t.Helper()
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	cmd := exec.Command(bin, args...)
	cmd.Env = commandEnv(env)
	cmd.Stdout = out // a file: what is printed before serving is there once it serves
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &serveProcess{cmd: cmd, stdout: out.Name(), done: make(chan error, 1)}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			s.log.add(sc.Text())
			if m := servingLine.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
		s.done <- cmd.Wait()
	}()
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	select {
	case a := <-addr:
		s.base = "http://" + a
	case err := <-s.done:
		t.Fatalf("serve exited: %v\n%s", err, s.log.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("serve did not start:\n%s", s.log.String())
	}
	return s
}

// demoCredentials reads the API key and admin token `serve --demo` printed.
func (s *serveProcess) demoCredentials(t *testing.T) (key, admin string) {
	t.Helper()
	b, err := os.ReadFile(s.stdout)
	if err != nil {
		t.Fatal(err)
	}
	k := regexp.MustCompile(`export API_KEY=(\S+)`).FindSubmatch(b)
	a := regexp.MustCompile(`export ADMIN_TOKEN=(\S+)`).FindSubmatch(b)
	if k == nil || a == nil {
		t.Fatalf("no credentials in %q", b)
	}
	return string(k[1]), string(a[1])
}

// stop sends SIGTERM and requires exit 0.
func (s *serveProcess) stop(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wait(t)
}

// wait requires the process to exit 0 soon.
func (s *serveProcess) wait(t *testing.T) {
	t.Helper()
	select {
	case err := <-s.done:
		if err != nil {
			t.Errorf("serve exited with %v, want 0\n%s", err, s.log.String())
		}
	case <-time.After(30 * time.Second):
		t.Errorf("serve did not stop after SIGTERM\n%s", s.log.String())
	}
}

type httpClient struct {
	t    *testing.T
	base string
}

func (h httpClient) do(method, path, token, body string) (int, []byte) {
	h.t.Helper()
	ctx, cancel := context.WithTimeout(h.t.Context(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, h.base+path, strings.NewReader(body))
	if err != nil {
		h.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatalf("%s %s: %v", method, path, err)
	}
	return resp.StatusCode, b
}

// call requires the status and decodes an object body, if any.
func (h httpClient) call(method, path, token, body string, want int) map[string]any {
	h.t.Helper()
	status, b := h.do(method, path, token, body)
	if status != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	var out map[string]any
	if strings.HasPrefix(string(b), "{") {
		if err := json.Unmarshal(b, &out); err != nil {
			h.t.Fatalf("%s %s: %v: %s", method, path, err, b)
		}
	}
	return out
}

// callList requires the status and decodes an array body.
func (h httpClient) callList(method, path, token string, want int) []map[string]any {
	h.t.Helper()
	status, b := h.do(method, path, token, "")
	if status != want {
		h.t.Fatalf("%s %s: status %d, want %d: %s", method, path, status, want, b)
	}
	var out []map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		h.t.Fatalf("%s %s: %v: %s", method, path, err, b)
	}
	return out
}

// orgKey creates an organisation with float through the operator API and returns an API key.
func (h httpClient) orgKey(admin string) string {
	h.t.Helper()
	org := h.call("POST", "/admin/organisations", admin, `{"name":"Settings Ltd"}`, 201)
	account := org["accounts"].([]any)[0].(map[string]any)["id"].(string)
	h.call("POST", "/admin/accounts/"+account+"/deposits", admin, `{"amount":1000}`, 201)
	return h.call("POST", "/admin/organisations/"+org["id"].(string)+"/apiKeys", admin, "", 201)["apiKey"].(string)
}

// count runs a counting query on a SQLite file.
func count(t *testing.T, file, query string, args ...any) int {
	t.Helper()
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(t.Context(), query, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}
