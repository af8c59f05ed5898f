package main

import (
	"net"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestHealthcheckURL(t *testing.T) {
	for listen, want := range map[string]string{
		":8080":          "http://127.0.0.1:8080/readyz",
		"0.0.0.0:8080":   "http://127.0.0.1:8080/readyz",
		"[::]:9000":      "http://127.0.0.1:9000/readyz",
		"127.0.0.2:8080": "http://127.0.0.2:8080/readyz",
		"[::1]:8080":     "http://[::1]:8080/readyz",
	} {
		if got, err := healthcheckURL(listen, "/readyz"); err != nil || got != want {
			t.Errorf("healthcheckURL(%q) = %q, %v; want %q", listen, got, err, want)
		}
	}
	if _, err := healthcheckURL("8080", "/readyz"); err == nil {
		t.Error("healthcheckURL(8080): no error for an address without a port")
	}
}

// TestHealthcheck: `disburse healthcheck` exits 0 when serve on the
// address it is given is ready, and 1 when the path does not answer 200 or
// nothing listens.
func TestHealthcheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	bin := buildBinary(t)
	s := startServe(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "h.db"))
	addr := strings.TrimPrefix(s.base, "http://")
	if _, stderr, code := runBinary(t, bin, []string{"DISBURSE_LISTEN=" + addr}, "healthcheck"); code != 0 {
		t.Errorf("healthcheck on a ready serve: exit %d, %s", code, stderr)
	}
	if _, stderr, code := runBinary(t, bin, nil, "healthcheck", "--listen", addr, "--path", "/nothing-here"); code != 1 || !strings.Contains(stderr, "404") {
		t.Errorf("healthcheck of a path that answers 404: exit %d, %s", code, stderr)
	}
	s.stop(t)
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed.Close()
	if _, stderr, code := runBinary(t, bin, nil, "healthcheck", "--listen", closed.Addr().String()); code != 1 {
		t.Errorf("healthcheck with nothing listening: exit %d, %s", code, stderr)
	}
}

// TestReleaseBuildVersion: the release build's -X flags stamp the version
// and revision that `disburse version` prints. The build keeps the test
// build's other flags, so it links what the cache holds: -trimpath and
// CGO_ENABLED=0 would compile every package again, and the release build
// itself is run by deploy/check.sh in .ci/run.
func TestReleaseBuildVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "disburse")
	build := exec.Command("go", "build", "-ldflags", "-X main.version=v1.2.3 -X main.revision=0123abcd", "-o", bin, ".")
	build.Env = commandEnv(nil)
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	stdout, _, code := runBinary(t, bin, nil, "version")
	if code != 0 || !strings.HasPrefix(stdout, "disburse v1.2.3 (revision 0123abcd, go") {
		t.Errorf("version: exit %d, %q", code, stdout)
	}
}
