// Package bench measures Disburse end to end: the real HTTP API, served
// in-process on 127.0.0.1:0 over the configured store, driven by an HTTP
// client in the same process. `disburse bench` (cmd/disburse/bench.go) is
// its command; docs/benchmarks.md holds the figures and how to read them.
//
// Two modes. The default measures the money paths through the API (add,
// submit, register, reverse) and, in the same run, the floor of add and
// submit: the same rows written straight into the same database with the
// least work the engine allows, so that a ratio says what the service
// costs over the database's own work. --http-load measures read endpoints under
// concurrent connections instead.
package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/disburse/disburse/internal/fanout"
	"github.com/disburse/disburse/sqlstore"
)

// Config is one run of the benchmark.
type Config struct {
	// DatabaseURL is sqlite:PATH or postgres://…; empty: a SQLite file in a
	// temporary directory, removed at the end.
	DatabaseURL string
	// Open opens and migrates the store a URL names: the same function
	// `serve` uses, so the bench measures the store serve would run on.
	// The store itself, which hands the API its Idempotency-Key store.
	Open func(ctx context.Context, url string) (*sqlstore.Store, error)

	Payments int // payments per batch
	Chunk    int // payments per POST /batches/{id}/payments
	Pairs    int // service/floor pairs of add and submit; medians are reported
	// Register is how many of the first batch's non-members register; 0
	// is all of them. A run of a million payments registers a sample:
	// registering every payee would take far longer than the rest of the
	// run, and their rate does not depend on the batch's size.
	Register int

	// Webhooks is how many webhook endpoints (every event) the bench's
	// organisations register, so that the money paths write their events'
	// deliveries too; the delivery phase sends them to the local gateway.
	Webhooks int
	// Deliver is how many notifications the delivery phase sends at
	// least; 0 is the first submit's (deliver.go).
	Deliver int
	// DeliveryConcurrency is the delivery workers' sends in flight, as
	// serve's --delivery-concurrency.
	DeliveryConcurrency int
	DeliveryRate        int // sends a second, as serve's --delivery-rate; 0 is no limit
	// LoadDuringDelivery measures GET /batches/{id} at Rate requests a
	// second, alone and then while the outbox of a submit of Payments is
	// delivered, instead.
	LoadDuringDelivery bool
	Rate               int

	HTTPLoad bool // measure read endpoints under load instead
	// Registration measures registrations instead, over Orgs organisations'
	// submitted batches of Payments payments in all, Register payees (0:
	// 10,000) for each count of concurrent clients in Clients.
	Registration bool
	Orgs         int
	Clients      []int
	// WritesDuringSubmit measures small writes of two organisations while
	// one of them submits a batch of Payments, instead.
	WritesDuringSubmit bool
	// Export measures GET /batches/{id}/payments.csv of a submitted batch
	// of Payments, which the floor writes, instead (export.go).
	Export bool
	// Curve measures add and submit, against their floors, at each batch
	// size of CurveSizes instead, and draws the cost per payment against
	// the size into CurvePNG (curve.go).
	Curve      bool
	CurveSizes []int
	CurvePNG   string
	// Tenants, when positive, measures that many organisations adding and
	// submitting Payments/Tenants payments each at once against one
	// organisation's Payments, instead (tenants.go).
	Tenants int
	// SmallRequests measures the service's CPU a small request and
	// POST /batches against its statements' floor, with the service run
	// as Executable's `serve` in a child process, instead (small.go).
	SmallRequests bool
	Executable    string
	// BulkConcurrency is each replica's bulk gate (httpapi.Config's): 0
	// the service's default, negative none, to compare.
	BulkConcurrency int
	Duration        time.Duration // per endpoint, with HTTPLoad; per step, with SmallRequests
	Connections     int           // concurrent connections, with HTTPLoad

	// CPUProfile, when set, receives the CPU profile of ProfilePhase's first
	// service run ("add", "submit", "register", "reverse", "deliver"), of GET
	// /batches/{id} under load ("batch"), or of the whole run ("all").
	CPUProfile   string
	ProfilePhase string

	Out      io.Writer // the table, then the JSON line, last
	Progress io.Writer // one line per step, so a long run shows it is alive
}

// Defaults are the issue's: 100,000 payments in requests of 10,000, three
// pairs; 64 connections for 30 s per endpoint under load.
var Defaults = Config{Payments: 100_000, Chunk: 10_000, Pairs: 3, Duration: 30 * time.Second, Connections: 64, ProfilePhase: "submit",
	Orgs: 8, Clients: []int{8, 64}, CurveSizes: []int{10_000, 100_000, 1_000_000}, DeliveryConcurrency: fanout.DefaultConcurrency, Rate: 1000}

// Run runs the benchmark cfg describes and writes its report to cfg.Out.
func Run(ctx context.Context, cfg Config) error {
	if err := cfg.check(); err != nil {
		return err
	}
	if cfg.DatabaseURL == "" {
		dir, err := os.MkdirTemp("", "disburse-bench-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		cfg.DatabaseURL = "sqlite:" + filepath.Join(dir, "bench.db")
	}
	env, err := start(ctx, cfg)
	if err != nil {
		return err
	}
	defer env.close()
	stop, err := env.profile("all")
	if err != nil {
		return err
	}
	defer stop()
	if cfg.HTTPLoad {
		return runLoad(ctx, env)
	}
	if cfg.WritesDuringSubmit {
		return runWritesDuringSubmit(ctx, env)
	}
	if cfg.Registration {
		return runRegistration(ctx, env)
	}
	if cfg.LoadDuringDelivery {
		return runLoadDuringDelivery(ctx, env)
	}
	if cfg.Export {
		return runExport(ctx, env)
	}
	if cfg.Curve {
		return runCurve(ctx, env)
	}
	if cfg.Tenants > 0 {
		return runTenants(ctx, env)
	}
	if cfg.SmallRequests {
		return runSmallRequests(ctx, env)
	}
	return runPayments(ctx, env)
}

// check refuses a configuration that cannot run and fills its defaults.
func (c *Config) check() error {
	if err := c.checkSizes(); err != nil {
		return err
	}
	if err := c.checkModes(); err != nil {
		return err
	}
	if c.Registration && c.Register == 0 {
		c.Register = 10_000
	}
	if c.Out == nil {
		c.Out = io.Discard
	}
	if c.Progress == nil {
		c.Progress = io.Discard
	}
	return nil
}

func (c *Config) checkSizes() error {
	switch {
	case c.Open == nil:
		return errors.New("bench: no store opener")
	case c.Payments < 20:
		return fmt.Errorf("bench: --payments must be at least 20, not %d", c.Payments)
	case c.Chunk < 1:
		return fmt.Errorf("bench: --chunk must be positive, not %d", c.Chunk)
	case c.Pairs < 1:
		return fmt.Errorf("bench: --pairs must be positive, not %d", c.Pairs)
	case c.Register < 0:
		return fmt.Errorf("bench: --register must not be negative, not %d", c.Register)
	case c.Tenants < 0 || c.Tenants > 0 && c.Payments/c.Tenants < 20:
		return fmt.Errorf("bench: --tenants must not be negative, and --payments must give each of them at least 20, not %d", c.Payments/max(c.Tenants, 1))
	case c.Curve && (len(c.CurveSizes) == 0 || slices.Min(c.CurveSizes) < 20):
		return errors.New("bench: every --curve-sizes size must be at least 20")
	}
	return nil
}

func (c *Config) checkModes() error {
	switch {
	case (c.HTTPLoad || c.LoadDuringDelivery || c.SmallRequests) && (c.Duration <= 0 || c.Connections < 1):
		return errors.New("bench: --duration and --connections must be positive")
	case c.Registration && (c.Orgs < 1 || len(c.Clients) == 0 || slices.Min(c.Clients) < 1):
		return errors.New("bench: --orgs and every --clients count must be positive")
	case c.Deliver < 0 || c.DeliveryRate < 0 || c.DeliveryConcurrency < 1 || c.Rate < 1:
		return errors.New("bench: --deliver and --delivery-rate must not be negative, --delivery-concurrency and --rate must be positive")
	}
	return c.checkProfilePhase()
}

// checkProfilePhase refuses a --profile-phase no run has.
func (c *Config) checkProfilePhase() error {
	switch c.ProfilePhase {
	case "add", "submit", "register", "reverse", "deliver", "batch", "export", "small", "all":
		return nil
	}
	return fmt.Errorf("bench: --profile-phase must be add, submit, register, reverse, deliver, batch, export, small or all, not %q", c.ProfilePhase)
}
