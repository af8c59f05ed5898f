// Package clientaddr says who sent a request: the connection's peer, or,
// when the peer is a reverse proxy the operator trusts, the address that
// proxy forwarded in X-Forwarded-For, and whether the client came over
// HTTPS (docs/operations.md, "TLS and reverse proxies"). Rate limits, the
// access log and the portal's cookies all ask here, through Of and HTTPS.
package clientaddr

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the reverse proxies whose forwarded headers are believed.
// The zero value trusts none: every header is ignored.
type Proxies struct {
	prefixes []netip.Prefix
}

// ParseProxies reads a comma-separated list of CIDRs (10.0.0.0/8,
// fd00::/8); a bare address is a prefix of that one address. "" trusts
// none.
func ParseProxies(s string) (Proxies, error) {
	var p Proxies
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		prefix, err := netip.ParsePrefix(part)
		if err != nil {
			addr, aerr := netip.ParseAddr(part)
			if aerr != nil {
				return Proxies{}, fmt.Errorf("trusted proxy %q: want a CIDR such as 10.0.0.0/8, or an address", part)
			}
			prefix = netip.PrefixFrom(addr.Unmap(), addr.Unmap().BitLen())
		}
		p.prefixes = append(p.prefixes, prefix.Masked())
	}
	return p, nil
}

// String is p as ParseProxies reads it.
func (p Proxies) String() string {
	parts := make([]string, len(p.prefixes))
	for i, prefix := range p.prefixes {
		parts[i] = prefix.String()
	}
	return strings.Join(parts, ",")
}

// Trusts reports whether a is one of the proxies.
func (p Proxies) Trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, prefix := range p.prefixes {
		if prefix.Contains(a) {
			return true
		}
	}
	return false
}

// client is what Handler found out about a request.
type client struct {
	addr  string
	https bool
}

type clientKey struct{}

// Handler finds the client of every request once, for Of and HTTPS to
// tell everyone after it.
func (p Proxies) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c := p.resolve(r)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), clientKey{}, c)))
	})
}

// resolve: from a trusted peer, the rightmost X-Forwarded-For address
// that is not itself a trusted proxy (each proxy appends the address it
// was reached from, so everything left of that can be made up by the
// client), and X-Forwarded-Proto; from any other peer, the peer alone.
func (p Proxies) resolve(r *http.Request) client {
	c := client{addr: peer(r), https: r.TLS != nil}
	addr, err := netip.ParseAddr(c.addr)
	if err != nil || !p.Trusts(addr) {
		return c
	}
	hops := strings.Split(strings.Join(r.Header.Values("X-Forwarded-For"), ","), ",")
	for i := len(hops) - 1; i >= 0; i-- {
		hop, ok := parseHop(hops[i])
		if !ok {
			break // not written by a proxy: the last good hop is the client
		}
		c.addr = hop.String()
		if !p.Trusts(hop) {
			break
		}
	}
	proto, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ",")
	if strings.EqualFold(strings.TrimSpace(proto), "https") {
		c.https = true
	}
	return c
}

// parseHop reads one X-Forwarded-For element: an address, with a port
// or not.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

// peer is the connection's address, without the port.
func peer(r *http.Request) string {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return ap.Addr().Unmap().String()
}

// Of is the client's address: what Handler found, or the connection's
// peer for a request that did not pass through it.
func Of(r *http.Request) string {
	if c, ok := r.Context().Value(clientKey{}).(client); ok {
		return c.addr
	}
	return peer(r)
}

// HTTPS reports whether the client reached the service over TLS: this
// connection's, or a trusted proxy's that says so in X-Forwarded-Proto.
func HTTPS(r *http.Request) bool {
	if c, ok := r.Context().Value(clientKey{}).(client); ok {
		return c.https
	}
	return r.TLS != nil
}
