package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"
)

// config is what `serve` needs (contract section 9). Every setting comes from
// a flag or its DISBURSE_* variable; a flag wins over its variable.
type config struct {
	Listen         string
	DatabaseURL    string
	AdminToken     string
	TokenTTL       time.Duration
	WorkerInterval time.Duration
	NotifyProvider string // "log" or "http"
	NotifyURL      string
	NotifyAttempts int
	Demo           bool
}

// flags registers the settings on fs, each defaulting to its variable's
// value or else the contract's default.
func (c *config) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.Listen, "listen", env("DISBURSE_LISTEN", ":8080"), "address to serve on (DISBURSE_LISTEN)")
	fs.StringVar(&c.DatabaseURL, "database-url", env("DISBURSE_DATABASE_URL", "sqlite:disburse.db"), "sqlite:PATH or postgres://… (DISBURSE_DATABASE_URL)")
	fs.StringVar(&c.AdminToken, "admin-token", env("DISBURSE_ADMIN_TOKEN", ""), "bearer token of the operator API; unset: the operator API answers 401 (DISBURSE_ADMIN_TOKEN)")
	fs.Var(durationValue{&c.TokenTTL}, "token-ttl", "access token lifetime (DISBURSE_TOKEN_TTL, default 1h)")
	fs.Var(durationValue{&c.WorkerInterval}, "worker-interval", "how often background workers look for due work (DISBURSE_WORKER_INTERVAL, default 5s)")
	fs.StringVar(&c.NotifyProvider, "notify-provider", env("DISBURSE_NOTIFY_PROVIDER", "log"), "notification provider: log or http (DISBURSE_NOTIFY_PROVIDER)")
	fs.StringVar(&c.NotifyURL, "notify-url", env("DISBURSE_NOTIFY_URL", ""), "gateway URL of the http provider (DISBURSE_NOTIFY_URL)")
	fs.IntVar(&c.NotifyAttempts, "notify-attempts", envInt("DISBURSE_NOTIFY_ATTEMPTS", 8), "delivery attempts before a notification is FAILED (DISBURSE_NOTIFY_ATTEMPTS)")
	c.TokenTTL = envDuration("DISBURSE_TOKEN_TTL", time.Hour)
	c.WorkerInterval = envDuration("DISBURSE_WORKER_INTERVAL", 5*time.Second)
}

// check reports settings that cannot work, before anything starts.
func (c *config) check() error {
	switch {
	case c.TokenTTL <= 0:
		return fmt.Errorf("token-ttl must be positive")
	case c.WorkerInterval <= 0:
		return fmt.Errorf("worker-interval must be positive")
	case c.NotifyProvider != "log" && c.NotifyProvider != "http":
		return fmt.Errorf("notify-provider must be log or http, not %q", c.NotifyProvider)
	case c.NotifyProvider == "http" && c.NotifyURL == "":
		return fmt.Errorf("notify-provider http needs notify-url")
	case c.NotifyAttempts < 1:
		return fmt.Errorf("notify-attempts must be at least 1")
	}
	return nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && strings.TrimSpace(v) != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	var n int
	if _, err := fmt.Sscan(env(name, ""), &n); err == nil {
		return n
	}
	return def
}

// envDuration reads a Go duration; a bad value is reported at start by
// failing fast rather than silently falling back.
func envDuration(name string, def time.Duration) time.Duration {
	v := env(name, "")
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		fmt.Fprintf(os.Stderr, "disburse: %s: %v\n", name, err)
		os.Exit(2)
	}
	return d
}

// durationValue is a flag.Value over a time.Duration that already holds its default.
type durationValue struct{ d *time.Duration }

func (v durationValue) String() string {
	if v.d == nil {
		return ""
	}
	return v.d.String()
}

func (v durationValue) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*v.d = d
	return nil
}
