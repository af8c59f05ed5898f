package main

import (
	"crypto/tls"
	"flag"
	"fmt"

	"github.com/disburse/disburse/internal/clientaddr"
)

// edgeFlags registers TLS and the trusted proxies (docs/operations.md,
// "TLS and reverse proxies").
func (c *config) edgeFlags(fs *flag.FlagSet) {
	fs.StringVar(&c.TLSCert, "tls-cert", "", "PEM certificate chain `file`: with --tls-key, serve HTTPS and HTTP/2 directly; unset: plain HTTP (DISBURSE_TLS_CERT)")
	fs.StringVar(&c.TLSKey, "tls-key", "", "PEM private key `file` of --tls-cert (DISBURSE_TLS_KEY)")
	fs.Var(proxiesValue{&c.TrustedProxies}, "trusted-proxies",
		"comma-separated `CIDRs` of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed; unset: none (DISBURSE_TRUSTED_PROXIES)")
}

// tlsConfig is the server's TLS configuration, nil without a certificate.
// The key pair is read once, at start: a bad file stops the start.
func tlsConfig(c *config) (*tls.Config, error) {
	if c.TLSCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(c.TLSCert, c.TLSKey)
	if err != nil {
		return nil, fmt.Errorf("tls-cert and tls-key: %w", err)
	}
	// NextProtos stays unset: http.Server.ServeTLS then offers h2 and http/1.1.
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// proxiesValue is a flag.Value over the trusted proxies.
type proxiesValue struct{ p *clientaddr.Proxies }

func (v proxiesValue) String() string {
	if v.p == nil {
		return ""
	}
	return v.p.String()
}

func (v proxiesValue) Set(s string) error {
	p, err := clientaddr.ParseProxies(s)
	if err != nil {
		return err
	}
	*v.p = p
	return nil
}
