package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"
)

// healthcheckTimeout bounds one check: /readyz itself gives the database
// one second.
const healthcheckTimeout = 5 * time.Second

// healthcheck asks the serve process on this machine for /readyz (or
// --path) and exits 0 on 200, 1 otherwise: a container's HEALTHCHECK in an
// image that has no curl (docs/operations.md "Containers"). It reads the
// listen address as serve does, so DISBURSE_LISTEN serves both.
func healthcheck(ctx context.Context, args []string) error {
	var listen, path string
	fs := flag.NewFlagSet("healthcheck", flag.ContinueOnError)
	fs.StringVar(&listen, "listen", ":8080", "the address serve listens on (DISBURSE_LISTEN); an unspecified host is checked on 127.0.0.1")
	fs.StringVar(&path, "path", "/readyz", "the path to ask: /readyz (ready for traffic) or /healthz (alive)")
	if err := parse(fs, args); err != nil {
		return err
	}
	url, err := healthcheckURL(listen, path)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, healthcheckTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s", url, resp.Status)
	}
	return nil
}

// healthcheckURL is the URL of path on the address serve listens on,
// with 127.0.0.1 for an unspecified host (":8080", "0.0.0.0:8080").
func healthcheckURL(listen, path string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("healthcheck: listen address %q: %w", listen, err)
	}
	if ip := net.ParseIP(host); host == "" || ip != nil && ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port) + path, nil
}
