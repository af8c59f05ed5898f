package main

import (
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/internal/fanout"
)

// config is what `serve` needs (docs/api.md section 9). Every setting comes from
// a flag or its DISBURSE_* variable; a flag wins over its variable.
type config struct {
	Listen         string
	MetricsListen  string // "": no /metrics
	LogFormat      string // text or json
	LogLevel       string // debug, info, warn or error
	DatabaseURL    string
	AdminToken     string
	TokenTTL       time.Duration
	WorkerInterval time.Duration
	NotifyProvider string // "log" or "http"
	NotifyURL      string
	NotifyAttempts int
	Limits         disburse.Limits // docs/api.md section 4.1
	MaxBodyBytes   int64           // docs/api.md section 4.1: 413 past it
	Demo           bool
	// WebhookAllowPrivate lets webhook endpoints be plain http on private
	// addresses (docs/webhooks.md); on with --demo.
	WebhookAllowPrivate bool
	// The HTTP server's bounds on slow and idle clients (docs/operations.md).
	ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	MaxHeaderBytes                         int
	// TLSCert and TLSKey are PEM files: with both, serve speaks HTTPS
	// (and HTTP/2) itself (tls.go).
	TLSCert, TLSKey string
	TLS             *tls.Config // read from them by serveConfig; nil: plain HTTP
	// TrustedProxies are the reverse proxies whose X-Forwarded-For and
	// X-Forwarded-Proto are believed (docs/operations.md, "TLS and reverse
	// proxies").
	TrustedProxies clientaddr.Proxies
	// Idempotency-Keys and request budgets (config_limits.go).
	IdempotencyLease time.Duration
	RateLimits       httpapi.RateLimits
	// BulkConcurrency is how many adds and submits this process serves at
	// once (httpapi.Config's; docs/operations.md, "Bulk work"); 0: the
	// store's default (bulkConcurrency).
	BulkConcurrency int

	// DeliveryConcurrency is how many notification sends, and how many
	// webhook attempts, each process has in flight at once; DeliveryRate
	// the most of each it starts a second (0: no limit).
	DeliveryConcurrency, DeliveryRate int
}

// variables maps each setting's flag to its variable. Only these flags read
// the environment: `org create --name` has no DISBURSE_NAME.
var variables = map[string]string{
	"listen":                   "DISBURSE_LISTEN",
	"metrics-listen":           "DISBURSE_METRICS_LISTEN",
	"log-format":               "DISBURSE_LOG_FORMAT",
	"log-level":                "DISBURSE_LOG_LEVEL",
	"database-url":             "DISBURSE_DATABASE_URL",
	"admin-token":              "DISBURSE_ADMIN_TOKEN",
	"token-ttl":                "DISBURSE_TOKEN_TTL",
	"worker-interval":          "DISBURSE_WORKER_INTERVAL",
	"notify-provider":          "DISBURSE_NOTIFY_PROVIDER",
	"notify-url":               "DISBURSE_NOTIFY_URL",
	"notify-attempts":          "DISBURSE_NOTIFY_ATTEMPTS",
	"delivery-concurrency":     "DISBURSE_DELIVERY_CONCURRENCY",
	"delivery-rate":            "DISBURSE_DELIVERY_RATE",
	"max-amount":               "DISBURSE_MAX_AMOUNT",
	"max-payments-per-request": "DISBURSE_MAX_PAYMENTS_PER_REQUEST",
	"max-payments-per-batch":   "DISBURSE_MAX_PAYMENTS_PER_BATCH",
	"max-body-bytes":           "DISBURSE_MAX_BODY_BYTES",
	"read-timeout":             "DISBURSE_READ_TIMEOUT",
	"write-timeout":            "DISBURSE_WRITE_TIMEOUT",
	"idle-timeout":             "DISBURSE_IDLE_TIMEOUT",
	"max-header-bytes":         "DISBURSE_MAX_HEADER_BYTES",
	"idempotency-lease":        "DISBURSE_IDEMPOTENCY_LEASE",
	"rate-limit-organisation":  "DISBURSE_RATE_LIMIT_ORGANISATION",
	"rate-limit-operator":      "DISBURSE_RATE_LIMIT_OPERATOR",
	"rate-limit-address":       "DISBURSE_RATE_LIMIT_ADDRESS",
	"rate-limit-member-exists": "DISBURSE_RATE_LIMIT_MEMBER_EXISTS",
	"bulk-concurrency":         "DISBURSE_BULK_CONCURRENCY",
	"webhook-allow-private":    "DISBURSE_WEBHOOK_ALLOW_PRIVATE",
	"tls-cert":                 "DISBURSE_TLS_CERT",
	"tls-key":                  "DISBURSE_TLS_KEY",
	"trusted-proxies":          "DISBURSE_TRUSTED_PROXIES",
}

// flags registers serve's settings on fs with the defaults of docs/api.md, which
// is what -h shows. parse applies the variables afterwards.
func (c *config) flags(fs *flag.FlagSet) {
	c.databaseFlag(fs)
	fs.StringVar(&c.Listen, "listen", ":8080", "address to serve on (DISBURSE_LISTEN)")
	fs.StringVar(&c.LogFormat, "log-format", "text", "log lines as text or json, on stderr; msisdns masked (DISBURSE_LOG_FORMAT)")
	fs.StringVar(&c.LogLevel, "log-level", "info", "debug, info, warn or error (DISBURSE_LOG_LEVEL)")
	fs.StringVar(&c.MetricsListen, "metrics-listen", "", "address to serve Prometheus /metrics on, apart from the API; unset: none (DISBURSE_METRICS_LISTEN)")
	fs.StringVar(&c.AdminToken, "admin-token", "", "bearer token of the operator API; unset: the operator API answers 401 (DISBURSE_ADMIN_TOKEN)")
	fs.DurationVar(&c.TokenTTL, "token-ttl", time.Hour, "access token lifetime (DISBURSE_TOKEN_TTL)")
	fs.DurationVar(&c.WorkerInterval, "worker-interval", 5*time.Second, "how often background workers look for due work (DISBURSE_WORKER_INTERVAL)")
	fs.StringVar(&c.NotifyProvider, "notify-provider", "log", "notification provider: log or http (DISBURSE_NOTIFY_PROVIDER)")
	fs.StringVar(&c.NotifyURL, "notify-url", "", "gateway URL of the http provider (DISBURSE_NOTIFY_URL)")
	fs.IntVar(&c.NotifyAttempts, "notify-attempts", 8, "delivery attempts before a notification is FAILED (DISBURSE_NOTIFY_ATTEMPTS)")
	fs.IntVar(&c.DeliveryConcurrency, "delivery-concurrency", fanout.DefaultConcurrency, "notification sends, and webhook attempts, each process has in flight at once (DISBURSE_DELIVERY_CONCURRENCY)")
	fs.IntVar(&c.DeliveryRate, "delivery-rate", 0, "most notification sends, and webhook attempts, each process starts a second, for a gateway's quota; 0 is no limit (DISBURSE_DELIVERY_RATE)")
	c.Limits = disburse.DefaultLimits
	fs.Var(moneyValue{&c.Limits.MaxAmount}, "max-amount", "largest `amount` of one payment or referral, at most 2 decimals (DISBURSE_MAX_AMOUNT)")
	fs.IntVar(&c.Limits.MaxPaymentsPerRequest, "max-payments-per-request", c.Limits.MaxPaymentsPerRequest, "payments in one POST /batches/{id}/payments (DISBURSE_MAX_PAYMENTS_PER_REQUEST)")
	fs.Int64Var(&c.Limits.MaxPaymentsPerBatch, "max-payments-per-batch", c.Limits.MaxPaymentsPerBatch, "non-deleted payments in one batch (DISBURSE_MAX_PAYMENTS_PER_BATCH)")
	fs.Int64Var(&c.MaxBodyBytes, "max-body-bytes", httpapi.DefaultMaxBodyBytes, "largest request body in bytes; past it 413 (DISBURSE_MAX_BODY_BYTES)")
	fs.DurationVar(&c.ReadTimeout, "read-timeout", 2*time.Minute, "longest a client may take to send a whole request, body included (DISBURSE_READ_TIMEOUT)")
	fs.DurationVar(&c.WriteTimeout, "write-timeout", 10*time.Minute, "longest a request may take from its headers to the end of its answer, a million-payment submit included; a batch's CSV export instead needs each write within a minute of the last (DISBURSE_WRITE_TIMEOUT)")
	fs.DurationVar(&c.IdleTimeout, "idle-timeout", 2*time.Minute, "how long an idle keep-alive connection is kept (DISBURSE_IDLE_TIMEOUT)")
	fs.IntVar(&c.MaxHeaderBytes, "max-header-bytes", 64<<10, "largest request header block in bytes; past it 431 (DISBURSE_MAX_HEADER_BYTES)")
	c.limitFlags(fs)
	c.edgeFlags(fs)
	fs.BoolVar(&c.WebhookAllowPrivate, "webhook-allow-private", false, "let webhook endpoints be plain http and private, loopback or link-local addresses; on with --demo (DISBURSE_WEBHOOK_ALLOW_PRIVATE)")
}

// databaseFlag registers --database-url alone, for the commands that only
// open the store (migrate, org create).
func (c *config) databaseFlag(fs *flag.FlagSet) {
	fs.StringVar(&c.DatabaseURL, "database-url", "sqlite:disburse.db", "sqlite:PATH or postgres://… (DISBURSE_DATABASE_URL)")
}

// parse reads args into fs, then gives every setting whose flag was not on
// the command line the value of its variable, if that is set. A bad
// variable is an error naming it, unless its flag was given: the flag wins.
func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var errs []error
	fs.VisitAll(func(f *flag.Flag) {
		name, ok := variables[f.Name]
		if !ok || given[f.Name] {
			return
		}
		v, ok := os.LookupEnv(name)
		if !ok || strings.TrimSpace(v) == "" {
			return
		}
		if err := fs.Set(f.Name, v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%q: invalid value: %v", name, v, err))
		}
	})
	return errors.Join(errs...)
}

// minAdminToken is the shortest operator token serve accepts: about 144
// bits when it is random base64, as a generated one is.
const minAdminToken = 24

// check reports settings that cannot work, before anything starts: the
// first one, in the order of the README's table.
func (c *config) check() error {
	for _, check := range []func() error{c.checkAccess, c.checkDelivery, c.checkLimits, c.checkHTTP} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *config) checkAccess() error {
	switch {
	case c.AdminToken != "" && len(c.AdminToken) < minAdminToken:
		return fmt.Errorf("admin-token must be at least %d characters: it opens the whole operator API", minAdminToken)
	case c.TokenTTL <= 0:
		return fmt.Errorf("token-ttl must be positive")
	case c.WorkerInterval <= 0:
		return fmt.Errorf("worker-interval must be positive")
	}
	return nil
}

func (c *config) checkDelivery() error {
	switch {
	case c.NotifyProvider != "log" && c.NotifyProvider != "http":
		return fmt.Errorf("notify-provider must be log or http, not %q", c.NotifyProvider)
	case c.NotifyProvider == "http" && c.NotifyURL == "":
		return fmt.Errorf("notify-provider http needs notify-url")
	case c.NotifyAttempts < 1:
		return fmt.Errorf("notify-attempts must be at least 1")
	case c.DeliveryConcurrency < 1:
		return fmt.Errorf("delivery-concurrency must be at least 1")
	case c.DeliveryRate < 0:
		return fmt.Errorf("delivery-rate must not be negative")
	}
	return nil
}

func (c *config) checkLimits() error {
	switch {
	case c.Limits.MaxAmount < disburse.MinAmount:
		return fmt.Errorf("max-amount must be at least %s, the smallest payment", disburse.MinAmount)
	case c.Limits.MaxPaymentsPerRequest < 1:
		return fmt.Errorf("max-payments-per-request must be at least 1")
	case c.Limits.MaxPaymentsPerBatch < 1:
		return fmt.Errorf("max-payments-per-batch must be at least 1")
	case c.MaxBodyBytes < 1:
		return fmt.Errorf("max-body-bytes must be at least 1")
	case c.BulkConcurrency < 0:
		return fmt.Errorf("bulk-concurrency must be 0 (the default) or more")
	}
	return nil
}

func (c *config) checkHTTP() error {
	switch {
	case c.ReadTimeout <= 0 || c.WriteTimeout <= 0 || c.IdleTimeout <= 0:
		return fmt.Errorf("read-timeout, write-timeout and idle-timeout must be positive")
	case c.MaxHeaderBytes < 4096:
		return fmt.Errorf("max-header-bytes must be at least 4096")
	case c.IdempotencyLease <= 0:
		return fmt.Errorf("idempotency-lease must be positive")
	case (c.TLSCert == "") != (c.TLSKey == ""):
		return fmt.Errorf("tls-cert and tls-key go together: give both, or neither")
	}
	return nil
}

// moneyValue is a flag.Value over an amount, parsed exactly like an API
// amount (no float on the money path, docs/api.md section 1).
type moneyValue struct{ m *disburse.Money }

func (v moneyValue) String() string {
	if v.m == nil {
		return ""
	}
	return v.m.String()
}

func (v moneyValue) Set(s string) error {
	m, ok := disburse.ParseMoney(s)
	if !ok {
		return fmt.Errorf("want an amount with at most 2 decimal places, such as 1000000 or 2500.50")
	}
	*v.m = m
	return nil
}
