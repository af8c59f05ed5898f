package main

import (
	"context"
	"flag"
	"os"
	"strconv"
	"strings"

	"github.com/disburse/disburse/bench"
)

// benchmark runs `disburse bench`: the real server in this process over
// real HTTP on loopback (package bench; docs/benchmarks.md has the figures).
func benchmark(ctx context.Context, args []string) error {
	cfg := bench.Defaults
	cfg.Open, cfg.Out, cfg.Progress = openStore, os.Stdout, os.Stderr
	// --small-requests runs this binary's serve as the service under test.
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cfg.Executable = exe
	if err := benchFlags(&cfg, args); err != nil {
		return err
	}
	return bench.Run(ctx, cfg)
}

// benchFlags reads the bench's flags into cfg. Its database is
// --database-url alone: no DISBURSE_DATABASE_URL, so that a benchmark
// never runs on a deployment's database by accident.
func benchFlags(cfg *bench.Config, args []string) error {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.StringVar(&cfg.DatabaseURL, "database-url", "", "sqlite:PATH or postgres://… (default: a temporary SQLite file); use a dedicated database, the bench fills it")
	fs.IntVar(&cfg.Payments, "payments", cfg.Payments, "payments per batch")
	fs.IntVar(&cfg.Chunk, "chunk", cfg.Chunk, "payments per POST /batches/{id}/payments")
	fs.IntVar(&cfg.Pairs, "pairs", cfg.Pairs, "service/floor pairs of add and submit (medians are reported)")
	fs.IntVar(&cfg.Register, "register", 0, "how many of the first batch's non-members register (default: all)")
	fs.IntVar(&cfg.Webhooks, "webhooks", 0, "webhook endpoints (every event) each organisation registers, so that events' deliveries are written and delivered too")
	fs.IntVar(&cfg.Deliver, "deliver", 0, "notifications the delivery phase sends at least (default: the first submit's)")
	fs.IntVar(&cfg.DeliveryConcurrency, "delivery-concurrency", cfg.DeliveryConcurrency, "sends in flight at once while delivering, as serve's flag")
	fs.IntVar(&cfg.DeliveryRate, "delivery-rate", cfg.DeliveryRate, "most sends a second while delivering, as serve's flag; 0 is no limit")
	fs.BoolVar(&cfg.LoadDuringDelivery, "load-during-delivery", false, "measure GET /batches/{id} at --rate, alone and while the outbox of a submit of --payments is delivered, instead")
	fs.IntVar(&cfg.Rate, "rate", cfg.Rate, "with --load-during-delivery: requests a second, over --connections; with --small-requests, GET /accounts a second")
	fs.BoolVar(&cfg.HTTPLoad, "http-load", false, "measure GET /batches/{id}, GET /batches?take=100 and GET /healthz under load instead")
	fs.BoolVar(&cfg.WritesDuringSubmit, "writes-during-submit", false, "measure POST /batches by the submitting organisation and by another one while a batch of --payments is submitted, instead")
	fs.BoolVar(&cfg.Export, "export", false, "measure GET /batches/{id}/payments.csv of a submitted batch of --payments (written by the floor) instead: its time and peak RSS")
	fs.BoolVar(&cfg.Registration, "registration", false, "measure registrations instead: --orgs organisations' submitted batches of --payments in all, --register payees (default 10,000) for each count of --clients")
	fs.IntVar(&cfg.Orgs, "orgs", cfg.Orgs, "with --registration: organisations")
	fs.Func("clients", "with --registration: comma-separated counts of concurrent clients, one round each (default 8,64)", intList(&cfg.Clients))
	fs.BoolVar(&cfg.Curve, "curve", false, "measure add and submit, against their floors, at each of --curve-sizes instead, and draw seconds per 100,000 payments against batch size as a PNG")
	fs.Func("curve-sizes", "with --curve: comma-separated batch sizes (default 10000,100000,1000000)", intList(&cfg.CurveSizes))
	fs.StringVar(&cfg.CurvePNG, "curve-png", "", "with --curve: the PNG to write (default curve-STORE.png in the working directory)")
	fs.IntVar(&cfg.Tenants, "tenants", 0, "measure this many organisations adding and submitting --payments/N payments each at once (through two replicas on PostgreSQL) against one organisation's --payments, instead")
	fs.StringVar(&cfg.Executable, "serve-binary", cfg.Executable, "with --small-requests: the disburse binary whose serve is measured (default: this one), to measure another build with the same bench")
	fs.BoolVar(&cfg.SmallRequests, "small-requests", false, "measure the service's CPU a small request (GET /accounts at --rate) and POST /batches against its statements' floor (--connections workers), with this binary's serve as a child process, instead")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "with --http-load: how long each endpoint is measured; with --small-requests, each step")
	fs.IntVar(&cfg.Connections, "connections", cfg.Connections, "with --http-load: concurrent connections; with --small-requests, the writers and the floor's clients")
	fs.IntVar(&cfg.BulkConcurrency, "bulk-concurrency", 0, "each replica's bulk requests (adds, submits) served at once, as serve's flag; 0 the service's default, -1 no limit (to compare)")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of --profile-phase to this file")
	fs.StringVar(&cfg.ProfilePhase, "profile-phase", cfg.ProfilePhase, "the phase --cpuprofile covers: add, submit, register, reverse, deliver (the first service run), batch (GET /batches/{id} under --http-load), export (with --export), small (with --small-requests: the bench's in-process server under the same load) or all")
	return fs.Parse(args)
}

// intList reads a flag of comma-separated counts into *dst.
func intList(dst *[]int) func(string) error {
	return func(v string) error {
		*dst = nil
		for _, f := range strings.Split(v, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil {
				return err
			}
			*dst = append(*dst, n)
		}
		return nil
	}
}
