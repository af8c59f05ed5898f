package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testTLS: with --tls-cert and --tls-key, serve answers HTTPS itself,
// over HTTP/2, with Strict-Transport-Security and X-Request-Id.
func testTLS(t *testing.T, bin string) {
	certFile, keyFile, pool := selfSigned(t)
	// A key that is not the certificate's stops the start, naming the flags.
	_, stderr, code := runBinary(t, bin, nil, "serve", "--listen", "127.0.0.1:0", "--database-url", "sqlite:"+filepath.Join(t.TempDir(), "x.db"),
		"--tls-cert", certFile, "--tls-key", certFile)
	if code == 0 || !strings.Contains(stderr, "tls-cert and tls-key") {
		t.Errorf("a bad key: exit %d, stderr %q", code, stderr)
	}
	s := startServe(t, bin, []string{"DISBURSE_TLS_KEY=" + keyFile}, "serve", "--listen", "127.0.0.1:0",
		"--database-url", "sqlite:"+filepath.Join(t.TempDir(), "d.db"), "--tls-cert", certFile)
	base := strings.Replace(s.base, "http://", "https://", 1)
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true,
	}}
	for _, path := range []string{"/healthz", "/portal/signin", "/batches/../healthz"} {
		req, err := http.NewRequestWithContext(t.Context(), "GET", base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("GET %s over TLS: %v", path, err)
		}
		resp.Body.Close()
		if resp.ProtoMajor != 2 || resp.TLS == nil {
			t.Errorf("GET %s: %s, TLS %v; want HTTP/2 over TLS", path, resp.Proto, resp.TLS != nil)
		}
		if got := resp.Header.Get("Strict-Transport-Security"); got != "max-age=31536000" {
			t.Errorf("GET %s: Strict-Transport-Security %q", path, got)
		}
		if resp.Header.Get("X-Request-Id") == "" {
			t.Errorf("GET %s: %d without X-Request-Id", path, resp.StatusCode)
		}
	}
	// Plain HTTP to the TLS port gets no answer of the service.
	if resp, err := http.Get(s.base + "/healthz"); err == nil {
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK {
			t.Errorf("plain HTTP to the TLS port answered 200")
		}
	}
	s.stop(t)
}

// selfSigned writes a certificate for 127.0.0.1 and its key as PEM files,
// and returns the pool that trusts it.
func selfSigned(t *testing.T) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "disburse test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func writePEM(t *testing.T, file, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
