package main

import (
	"context"
	"flag"
	"os"

	"github.com/disburse/disburse/bench"
)

// benchmark runs `disburse bench`: the real server in this process over
// real HTTP on loopback (package bench; docs/benchmarks.md has the figures).
func benchmark(ctx context.Context, args []string) error {
	cfg := bench.Defaults
	cfg.Open, cfg.Out, cfg.Progress = openStore, os.Stdout, os.Stderr
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
	fs.IntVar(&cfg.Webhooks, "webhooks", 0, "webhook endpoints (every event) each organisation registers, so that events' deliveries are written too")
	fs.BoolVar(&cfg.HTTPLoad, "http-load", false, "measure GET /batches/{id}, GET /batches?take=100 and GET /healthz under load instead")
	fs.BoolVar(&cfg.WritesDuringSubmit, "writes-during-submit", false, "measure POST /batches by the submitting organisation and by another one while a batch of --payments is submitted, instead")
	fs.DurationVar(&cfg.Duration, "duration", cfg.Duration, "with --http-load: how long each endpoint is measured")
	fs.IntVar(&cfg.Connections, "connections", cfg.Connections, "with --http-load: concurrent connections")
	fs.StringVar(&cfg.CPUProfile, "cpuprofile", "", "write a CPU profile of --profile-phase to this file")
	fs.StringVar(&cfg.ProfilePhase, "profile-phase", cfg.ProfilePhase, "the phase --cpuprofile covers: add, submit, register, reverse (the first service run), batch (GET /batches/{id} under --http-load) or all")
	return fs.Parse(args)
}
