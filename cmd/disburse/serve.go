package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/logs"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
	"github.com/disburse/disburse/webhooks"
	"github.com/disburse/disburse/worker"
)

// readHeaderTimeout bounds how long a client may take to send its headers.
const readHeaderTimeout = 10 * time.Second

// shutdownGrace bounds how long in-flight requests may take once SIGTERM arrives.
const shutdownGrace = 30 * time.Second

// serve runs the API and the workers until ctx ends (SIGTERM or SIGINT),
// then stops taking requests, lets those in flight finish, stops the
// workers after the work they hold, and returns nil: exit code 0.
func serve(ctx context.Context, args []string) error {
	c, err := serveConfig(args)
	if err != nil {
		return err
	}
	log, err := logs.New(os.Stderr, c.LogFormat, c.LogLevel)
	if err != nil {
		return err
	}

	// The port first: one already in use is found before the database is
	// migrated or a demo organisation inserted.
	ln, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return err
	}
	defer ln.Close()
	log.Info("opening the database", "database", redact(c.DatabaseURL))
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	svc := disburse.NewService(store)
	svc.Limits, svc.Log = c.Limits, log
	keys := auth.New(store.Auth(), svc)
	office := backoffice.NewService(store)
	hooks := webhooks.New(store.Webhooks(), svc)
	hooks.Config.AllowPrivate = c.WebhookAllowPrivate
	notes := notifications.New(store.Notifications(), svc)

	if c.Demo {
		c.Listen = ln.Addr().String() // the portal address the demo prints is the one bound
		if err := demo(ctx, svc, keys, office, c); err != nil {
			return err
		}
	}

	keyStore := store.Idempotency()
	loops := backgroundLoops(svc, office, notes, hooks, idempotency.New(svc, keyStore), keys, c, log)
	var metrics *metricsServer
	apiConfig := httpapi.Config{AdminToken: c.AdminToken, MaxBodyBytes: c.MaxBodyBytes, Log: log,
		IdempotencyLease: c.IdempotencyLease, IdempotencyStore: keyStore, AuthStore: store.Auth(), TokenTTL: c.TokenTTL, OperatorStore: store, RateLimits: c.RateLimits, Webhooks: hooks,
		BulkGate: bulkgate.New(bulkConcurrency(c, store)), Timeouts: httpapi.ServerTimeouts{Read: c.ReadTimeout, Write: c.WriteTimeout}}
	if c.MetricsListen != "" {
		mln, err := net.Listen("tcp", c.MetricsListen)
		if err != nil {
			return err
		}
		reg := newRegistry(store)
		registerBulkGauges(reg, apiConfig.BulkGate)
		apiConfig.Metrics = httpapi.NewMetrics(reg)
		m := newMeter(reg)
		svc.Meter, notes.Meter, hooks.Meter = m, m, m
		loops = countSweeps(reg, loops)
		metrics = startMetrics(mln, reg, log)
	}
	srv := c.server(c.handler(svc, office, apiConfig, log))
	var workers worker.Group
	workers.Start(context.WithoutCancel(ctx), loops...)

	version, revision := buildVersion()
	log.Info("disburse serving", "addr", ln.Addr().String(), "tls", c.TLS != nil,
		"database", redact(c.DatabaseURL), "version", version, "revision", revision)
	return runUntilDone(ctx, srv, ln, &workers, metrics, log)
}

// server is the HTTP server of handler, with the configured TLS, timeouts
// and header limit.
func (c *config) server(handler http.Handler) *http.Server {
	return &http.Server{
		Handler:           handler,
		TLSConfig:         c.TLS,
		ReadHeaderTimeout: min(readHeaderTimeout, c.ReadTimeout),
		ReadTimeout:       c.ReadTimeout,
		WriteTimeout:      c.WriteTimeout,
		IdleTimeout:       c.IdleTimeout,
		MaxHeaderBytes:    c.MaxHeaderBytes,
	}
}

// handler is the portal and the API inside httpapi.Edge, with one address
// budget for the API and the portal's sign-in, and the API's bulk gate
// (api.BulkGate) for the portal's uploads, submits and approvals too.
func (c *config) handler(svc *disburse.Service, office *backoffice.Service, api httpapi.Config, log *slog.Logger) http.Handler {
	addresses := ratelimit.New(c.RateLimits.Address, c.RateLimits.Clock)
	api.Addresses = addresses
	api.Portal = portal.New(svc, office, portal.Config{Log: log, Addresses: addresses, AuthStore: api.AuthStore,
		Operators: operators.New(api.OperatorStore, ""), RateLimited: api.Metrics.RateLimited,
		BulkGate: api.BulkGate, Deadlines: api.Timeouts})
	return httpapi.Edge(httpapi.New(svc, api), c.TrustedProxies)
}

// serveConfig reads serve's flags and variables, and checks them.
func serveConfig(args []string) (*config, error) {
	c := &config{}
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	c.flags(fs)
	fs.BoolVar(&c.Demo, "demo", false, "create a demo organisation with float (once per database) and print an API key (and an admin token if none is set); listens on 127.0.0.1:8080 unless told otherwise")
	if err := parse(fs, args); err != nil {
		return nil, err
	}
	if c.Demo {
		c.WebhookAllowPrivate = true // a demo's receiver runs on the same machine
	}
	if c.Demo && !listenGiven(fs) {
		// The demo prints an operator token: keep it off the network.
		c.Listen = demoListen
	}
	if err := c.check(); err != nil {
		return nil, err
	}
	tlsConf, err := tlsConfig(c)
	c.TLS = tlsConf
	return c, err
}

// runUntilDone serves on ln until ctx ends, then stops taking requests,
// lets those in flight finish, and stops the workers after the work they
// hold.
func runUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, workers *worker.Group, metrics *metricsServer, log *slog.Logger) error {
	served := make(chan error, 1)
	go func() {
		if srv.TLSConfig != nil {
			served <- srv.ServeTLS(ln, "", "") // with HTTP/2
			return
		}
		served <- srv.Serve(ln)
	}()

	select {
	case err := <-served:
		workers.Stop()
		_ = metrics.stop(context.WithoutCancel(ctx))
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down: finishing requests in flight and claimed work")
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	err := srv.Shutdown(shutdownCtx)
	workers.Stop()
	err = errors.Join(err, metrics.stop(shutdownCtx))
	if err != nil {
		return fmt.Errorf("shutdown: %w", err)
	}
	if err := <-served; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopped")
	return nil
}

// demoListen is where serve --demo listens unless --listen or
// DISBURSE_LISTEN says otherwise.
const demoListen = "127.0.0.1:8080"

// listenGiven reports whether the listen address came from the command
// line or the environment, not the default.
func listenGiven(fs *flag.FlagSet) bool {
	given := false // parse sets a flag from its variable, so Visit sees both
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "listen" })
	return given
}

// backgroundLoops are the reversal sweep, notification and webhook
// delivery, and the purges.
func backgroundLoops(svc *disburse.Service, office *backoffice.Service, notes *notifications.Service, hooks *webhooks.Service,
	keys *idempotency.Keys, tokens *auth.Service, c *config, log *slog.Logger) []worker.Loop {
	var provider notifications.Notifier = notify.Log{Logger: log}
	if c.NotifyProvider == "http" {
		provider = notify.NewHTTP(c.NotifyURL, c.DeliveryConcurrency)
	}
	policy := notifications.DefaultPolicy
	policy.MaxAttempts, policy.Concurrency, policy.Rate = c.NotifyAttempts, c.DeliveryConcurrency, c.DeliveryRate
	hookPolicy := webhooks.DefaultPolicy
	hookPolicy.Concurrency, hookPolicy.Rate = c.DeliveryConcurrency, c.DeliveryRate
	host, _ := os.Hostname()
	owner := fmt.Sprintf("%s-%d-%s", host, os.Getpid(), disburse.NewID()[24:])
	return []worker.Loop{
		worker.MemberChecks(svc, c.WorkerInterval, log),
		worker.TokenPurge(tokens, c.WorkerInterval, log),
		worker.IdempotencyPurge(keys, c.WorkerInterval, log),
		{Name: "portal-session-purge", Interval: c.WorkerInterval, RunOnce: office.PurgeSessions, Log: log},
		{Name: "portal-upload-purge", Interval: c.WorkerInterval, RunOnce: office.PurgeUploads, Log: log},
		worker.Reversal(svc, c.WorkerInterval, log),
		worker.Delivery(notes, provider, owner, policy, c.WorkerInterval, log),
		worker.Webhooks(hooks, notify.NewWebhook(c.WebhookAllowPrivate), httpapi.WebhookRenderer{}, owner, hookPolicy, c.WorkerInterval, log),
	}
}

// redact hides a password in a database URL before it is logged.
func redact(raw string) string {
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		return u.Redacted()
	}
	return raw
}
