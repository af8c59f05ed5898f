package main

import (
	"bufio"
	"context"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testStartupEdgeCases: settings that cannot work stop serve before it
// touches anything, and --demo is safe to run again.
func testStartupEdgeCases(t *testing.T, bin string) {
	dir := t.TempDir()

	// sqlite: with no path, and an in-memory database, are refused with a
	// message, and leave no file behind.
	for _, url := range []string{"sqlite:", "sqlite: ", "sqlite::memory:"} {
		_, stderr, code := runBinaryIn(t, dir, bin, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", url)
		if code == 0 || !strings.Contains(stderr, "sqlite") {
			t.Errorf("%q: exit %d, stderr %q; want a clear error", url, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("refused starts left files: %v", entries)
	}

	// An operator token must be long enough to be a secret.
	_, stderr, code := runBinary(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--admin-token", "x",
		"--database-url", "sqlite:"+filepath.Join(dir, "short.db"))
	if code == 0 || !strings.Contains(stderr, "admin-token must be at least") {
		t.Errorf("one-character admin token: exit %d, stderr %q", code, stderr)
	}

	// A port in use is found before the database is created or migrated.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	busy := filepath.Join(dir, "busy.db")
	_, stderr, code = runBinary(t, bin, nil, "serve", "--demo", "--listen", taken.Addr().String(), "--database-url", "sqlite:"+busy)
	if code == 0 || !strings.Contains(stderr, "address already in use") {
		t.Errorf("port in use: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(busy); !os.IsNotExist(err) {
		t.Errorf("port in use, yet the database was created (%v)", err)
	}

	// --demo twice on one database: one demo organisation, and each start
	// prints a key that works.
	file := filepath.Join(dir, "demo.db")
	for range 2 {
		s := startServe(t, bin, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", "sqlite:"+file)
		key, _ := s.demoCredentials(t)
		h := httpClient{t: t, base: s.base}
		h.call("POST", "/authentication/getToken", "", `{"apiKey":"`+key+`"}`, 200)
		s.stop(t)
	}
	if n := count(t, file, "SELECT count(*) FROM organisations"); n != 1 {
		t.Errorf("%d organisations after two demo starts, want 1", n)
	}

	// --demo listens on loopback unless told otherwise: its stderr names
	// 127.0.0.1:8080 (unless that port is taken here, which ends it early).
	stderr = stderrUntil(t, "127.0.0.1:8080", bin, "serve", "--demo", "--database-url", "sqlite:"+filepath.Join(dir, "loop.db"))
	if !strings.Contains(stderr, "127.0.0.1:8080") {
		t.Errorf("serve --demo without --listen: stderr %q, want it on 127.0.0.1:8080", stderr)
	}
}

// testSlowAndIdleClients: a body trickled in is cut at the read timeout,
// and an idle keep-alive connection is closed at the idle timeout.
func testSlowAndIdleClients(t *testing.T, bin string) {
	s := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--read-timeout", "2s", "--idle-timeout", "1s",
		"--database-url", "sqlite:"+filepath.Join(t.TempDir(), "slow.db"))
	addr := strings.TrimPrefix(s.base, "http://")

	trickle, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer trickle.Close()
	start := time.Now()
	if _, err := io.WriteString(trickle, "POST /authentication/getToken HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	closed := make(chan time.Duration, 1)
	go func() {
		_, _ = io.Copy(io.Discard, trickle) // returns when the server closes it
		closed <- time.Since(start)
	}()
	for i := 0; i < 20; i++ { // one byte every 500ms: at most 10 s
		select {
		case d := <-closed:
			if d > 5*time.Second {
				t.Errorf("trickled body held %v, want about the 2s read timeout", d)
			}
			goto idle
		case <-time.After(500 * time.Millisecond):
			_, _ = trickle.Write([]byte("{"))
		}
	}
	t.Error("a body sent one byte every 500ms was still held after 10s")

idle:
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(conn)
	if line, err := r.ReadString('\n'); err != nil || !strings.Contains(line, "200") {
		t.Fatalf("healthz: %q %v", line, err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	idleStart := time.Now()
	_, _ = io.Copy(io.Discard, r) // the rest of the answer, then EOF when the server closes
	if d := time.Since(idleStart); d > 5*time.Second {
		t.Errorf("idle keep-alive connection kept %v, want about the 1s idle timeout", d)
	}
	s.stop(t)
}

// runBinaryIn is runBinary with dir as the working directory.
func runBinaryIn(t *testing.T, dir, bin string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runBinaryAt(t, dir, time.Minute, bin, env, args...)
}

// runBinaryFor runs a command that would run on, and stops it after d.
// stderrUntil runs the binary until its stderr holds want, it exits, or a
// minute passes (a busy machine can take seconds to migrate), and returns
// the stderr it read.
func stderrUntil(t *testing.T, want, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = commandEnv(nil)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var read strings.Builder
	lines := bufio.NewScanner(pipe)
	for lines.Scan() {
		read.WriteString(lines.Text() + "\n")
		if strings.Contains(lines.Text(), want) {
			break
		}
	}
	cancel()
	_ = cmd.Wait()
	return read.String()
}
