package clientaddr

import (
	"crypto/tls"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

// TestResolve: forwarded headers count only from a trusted peer, and then
// the client is the rightmost forwarded address that is no trusted proxy.
func TestResolve(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8, 192.168.1.1,fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, peer, xff, proto string
		tls                    bool
		addr                   string
		https                  bool
	}{
		{"no proxy", "203.0.113.9:5000", "", "", false, "203.0.113.9", false},
		{"untrusted peer's headers ignored", "203.0.113.9:5000", "198.51.100.1", "https", false, "203.0.113.9", false},
		{"trusted proxy", "10.1.2.3:4000", "198.51.100.1", "https", false, "198.51.100.1", true},
		{"made-up hops left of the real one", "10.1.2.3:4000", "1.1.1.1, 2.2.2.2, 198.51.100.1", "http", false, "198.51.100.1", false},
		{"a chain of trusted proxies", "10.1.2.3:4000", "198.51.100.1, 192.168.1.1, 10.9.9.9", "HTTPS", false, "198.51.100.1", true},
		{"a trusted proxy that forwards nothing", "10.1.2.3:4000", "", "", false, "10.1.2.3", false},
		{"every hop trusted", "10.1.2.3:4000", "10.0.0.1, 10.0.0.2", "", false, "10.0.0.1", false},
		{"garbage left of the proxy's hop", "10.1.2.3:4000", "not-an-ip, 198.51.100.1", "", false, "198.51.100.1", false},
		{"garbage as the last hop", "10.1.2.3:4000", "198.51.100.1, junk", "", false, "10.1.2.3", false},
		{"a hop with a port", "10.1.2.3:4000", "198.51.100.1:1234", "", false, "198.51.100.1", false},
		{"IPv6 proxy and client", "[fd00::1]:443", "2001:db8::7", "https", false, "2001:db8::7", true},
		{"IPv4 in IPv6 peer", "[::ffff:10.1.2.3]:4000", "198.51.100.1", "", false, "198.51.100.1", false},
		{"TLS to us", "203.0.113.9:5000", "", "", true, "203.0.113.9", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest("GET", "/", nil)
			r.RemoteAddr = tc.peer
			if tc.xff != "" {
				r.Header.Set("X-Forwarded-For", tc.xff)
			}
			if tc.proto != "" {
				r.Header.Set("X-Forwarded-Proto", tc.proto)
			}
			if tc.tls {
				r.TLS = &tls.ConnectionState{}
			}
			var addr string
			var https bool
			proxies.Handler(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
				addr, https = Of(r), HTTPS(r)
			})).ServeHTTP(httptest.NewRecorder(), r)
			if addr != tc.addr || https != tc.https {
				t.Errorf("client %q https %v, want %q %v", addr, https, tc.addr, tc.https)
			}
		})
	}
}

// TestTwoHeaders: several X-Forwarded-For fields read as one list.
func TestTwoHeaders(t *testing.T) {
	proxies, _ := ParseProxies("10.0.0.0/8")
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.5:1"
	r.Header.Add("X-Forwarded-For", "1.1.1.1")
	r.Header.Add("X-Forwarded-For", "198.51.100.1, 10.0.0.7")
	if got := proxies.resolve(r).addr; got != "198.51.100.1" {
		t.Errorf("client %q, want 198.51.100.1", got)
	}
}

func TestParseProxies(t *testing.T) {
	p, err := ParseProxies(" 10.0.0.1/8 ,::1, 127.0.0.1")
	if err != nil || p.String() != "10.0.0.0/8,::1/128,127.0.0.1/32" {
		t.Errorf("ParseProxies = %q, %v", p.String(), err)
	}
	for _, bad := range []string{"10.0.0.0/33", "example.org", "10.0.0.0/8,x"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) accepted", bad)
		}
	}
	if p, err := ParseProxies(""); err != nil || p.Trusts(mustAddr("127.0.0.1")) {
		t.Errorf("the empty list trusts someone: %v", err)
	}
}

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }
