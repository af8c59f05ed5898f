package postgres_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
)

// TestTerminatedConnectionsAreRetried: pooled connections that the server
// terminated (pg_terminate_backend, a restart, a failover) cost no error:
// the statement that finds one dead had sent nothing that could commit,
// so the store runs the transaction again on a new connection.
func TestTerminatedConnectionsAreRetried(t *testing.T) {
	ctx := t.Context()
	u := pgtest.URL(t)
	s, err := postgres.Open(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc := disburse.NewService(s)
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Before"})
	if err != nil {
		t.Fatal(err)
	}
	keys := auth.New(s.Auth(), svc)
	_, key, err := keys.CreateAPIKey(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for round := range 3 {
		if n := terminateBackends(t, u); n == 0 {
			t.Fatalf("round %d: no backend to terminate", round)
		}
		if _, err := svc.Deposit(ctx, accounts[0].ID, "10", "after a restart"); err != nil {
			t.Errorf("round %d: Write after the backends were terminated: %v", round, err)
		}
		terminateBackends(t, u)
		if _, err := organisations.Accounts(ctx, svc, org.ID); err != nil {
			t.Errorf("round %d: Read after the backends were terminated: %v", round, err)
		}
		terminateBackends(t, u)
		token, _, err := keys.IssueToken(ctx, key)
		if err != nil {
			t.Errorf("round %d: getToken after the backends were terminated: %v", round, err)
		}
		terminateBackends(t, u)
		if _, err := keys.Authenticate(ctx, token); err != nil {
			t.Errorf("round %d: a token's lookup after the backends were terminated: %v", round, err)
		}
	}
}

// terminateBackends ends every session of u's database but its own, as an
// operator or a failover would, and returns how many it ended.
func terminateBackends(t *testing.T, u string) int {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var n int
	err = conn.QueryRow(t.Context(), `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid()`).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestOpenGivesUpOnASilentServer: a server that accepts connections and
// never answers fails the start-up within the default connect timeout,
// instead of holding it for ever.
func TestOpenGivesUpOnASilentServer(t *testing.T) {
	testenv.SkipUnlessLong(t) // five seconds of waiting out the connect timeout
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // held open, never answered
		}
	}()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		s, err := postgres.Open(t.Context(), "postgres://postgres@"+ln.Addr().String()+"/test?sslmode=disable")
		if err == nil {
			s.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("Open succeeded against a silent server")
		}
		if d := time.Since(start); d > 20*time.Second {
			t.Errorf("Open gave up after %v, want about the 5s connect timeout", d)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Open still waiting on a silent server after 30s")
	}
}

// TestUnreachableDatabaseIs503: once the database cannot be reached, the
// API answers 503 unavailable (a problem, with Retry-After), not 500, and
// /healthz answers within about a second.
func TestUnreachableDatabaseIs503(t *testing.T) {
	ctx := t.Context()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, u.Host)
	u.Host = p.addr()
	s, err := postgres.Open(ctx, u.String())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	svc := disburse.NewService(s)
	const admin = "unreachable-test-admin-token"
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{AdminToken: admin, Log: slog.New(slog.DiscardHandler), IdempotencyStore: s.Idempotency(), AuthStore: s.Auth()}))
	defer srv.Close()
	call := func(method, path, body string) (*http.Response, map[string]any) {
		req, _ := http.NewRequestWithContext(ctx, method, srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+admin)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got map[string]any
		b, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(b, &got)
		return resp, got
	}
	if resp, _ := call("POST", "/admin/organisations", `{"name":"Reachable"}`); resp.StatusCode != 201 {
		t.Fatalf("before the cut: %d", resp.StatusCode)
	}
	p.cut()
	resp, got := call("POST", "/admin/organisations", `{"name":"Unreachable"}`)
	if resp.StatusCode != 503 || got["code"] != "unavailable" || resp.Header.Get("Content-Type") != "application/problem+json" || resp.Header.Get("Retry-After") == "" {
		t.Errorf("write with the database cut: %d %v %v, want 503 unavailable with Retry-After", resp.StatusCode, resp.Header, got)
	}
	if resp, got := call("GET", "/admin/members/254712345678/statement", ""); resp.StatusCode != 503 {
		t.Errorf("read with the database cut: %d %v, want 503", resp.StatusCode, got)
	}
	start := time.Now()
	if resp, _ := call("GET", "/healthz", ""); resp.StatusCode != 503 {
		t.Errorf("healthz with the database cut: %d, want 503", resp.StatusCode)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("healthz took %v, want about a second at most", d)
	}
}

// openBehindProxy opens a fresh database, at direct, twice: faulty
// through a proxy the test breaks, steady straight, to check what the
// faults left. Both close when the test ends.
func openBehindProxy(t *testing.T) (p *proxy, direct string, faulty, steady *sqlstore.Store) {
	t.Helper()
	u, err := url.Parse(pgtest.URL(t))
	if err != nil {
		t.Fatal(err)
	}
	direct = u.String()
	p = startProxy(t, u.Host)
	u.Host = p.addr()
	if faulty, err = postgres.Open(t.Context(), u.String()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { faulty.Close() })
	if steady, err = postgres.Open(t.Context(), direct); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { steady.Close() })
	return p, direct, faulty, steady
}

// proxy forwards TCP connections to a target. cut refuses new ones and
// breaks those open: the database is gone, as far as the store can tell.
// breakAll breaks the open ones only, and cutAtCommit arms a cut of the
// next connection that sends COMMIT, right after COMMIT has gone through:
// the server may have committed, and the client cannot hear it.
// cutAtCommitAfter arms a cut of its own (commitCut): after some COMMITs,
// with that COMMIT dropped or sent, and the database then gone until up.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
	gone  bool
	down  bool       // new connections are refused until up
	armed *commitCut // the cut at a COMMIT, while armed
}

// commitCut says where and how a connection is cut at its COMMIT.
type commitCut struct {
	skip int  // COMMITs to let through first
	drop bool // the COMMIT never reaches the server: nothing commits
	down bool // then every connection breaks and new ones are refused, until up
}

func startProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	t.Cleanup(p.cut)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			if p.isDown() {
				c.Close()
				continue
			}
			d, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			if !p.track(c, d) {
				return
			}
			go p.forward(c, d)
			go func() { _, _ = io.Copy(c, d); c.Close() }()
		}
	}()
	return p
}

// forward copies what the client sends to the server, watching for COMMIT
// when a cut there is armed.
func (p *proxy) forward(client, server net.Conn) {
	defer server.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := client.Read(buf)
		if n > 0 {
			if cut := p.commitSent(buf[:n]); cut != nil {
				p.cutAt(cut, client, server, buf[:n])
				return
			}
			if _, werr := server.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

// commitSent returns the armed cut when b sends its COMMIT: the statement
// itself, as pgx sends it (a simple query "commit", NUL-terminated), not a
// BEGIN that names the READ COMMITTED isolation level.
func (p *proxy) commitSent(b []byte) *commitCut {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.armed == nil || !bytes.Contains(bytes.ToLower(b), []byte("commit\x00")) {
		return nil
	}
	if p.armed.skip > 0 {
		p.armed.skip--
		return nil
	}
	cut := p.armed
	p.armed = nil
	return cut
}

func (p *proxy) cutAtCommit() { p.cutAtCommitAfter(commitCut{}) }

// cutAtCommitAfter arms cut.
func (p *proxy) cutAtCommitAfter(cut commitCut) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.armed = &cut
}

// cutAt cuts client off at its COMMIT, which goes on to the server
// unless cut drops it. The client is closed before the COMMIT is sent:
// were it closed after, the server's answer could reach it first, and the
// commit would not be in doubt at all. With cut.down, new connections are
// refused before the client can hear of the cut and reconnect.
func (p *proxy) cutAt(cut *commitCut, client, server net.Conn, commit []byte) {
	if cut.down {
		p.mu.Lock()
		p.down = true
		p.mu.Unlock()
	}
	client.Close()
	if !cut.drop {
		_, _ = server.Write(commit)
	}
	if cut.down {
		p.breakAll()
	}
}

// up takes connections again.
func (p *proxy) up() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

func (p *proxy) isDown() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.down
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) track(cs ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.gone {
		for _, c := range cs {
			c.Close()
		}
		return false
	}
	p.conns = append(p.conns, cs...)
	return true
}

// breakAll breaks every open connection; new ones are still taken.
func (p *proxy) breakAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		_ = c.Close() // one already closed is no failure here
	}
	p.conns = nil
}

func (p *proxy) cut() {
	p.mu.Lock()
	if p.gone {
		p.mu.Unlock()
		return
	}
	p.gone = true
	_ = p.ln.Close()
	p.mu.Unlock()
	p.breakAll()
}
