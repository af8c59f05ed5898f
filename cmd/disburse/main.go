// Command disburse is the batch payout service: `disburse serve` runs the
// API and the background workers; the other subcommands help run it.
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: disburse <command> [flags]

commands:
  serve        run the HTTP API and the background workers (--demo: create a demo organisation)
  migrate      apply the database migrations and exit
  org create   create an organisation with a deposit and an API key, print them
  bench        benchmark the API in-process: add, submit, register, reverse against a bulk baseline (--http-load: read endpoints under load)

Run 'disburse <command> -h' for a command's flags. Every flag has a DISBURSE_* variable.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "disburse:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command given")
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:])
	case "migrate":
		return migrate(ctx, args[1:])
	case "bench":
		return benchmark(ctx, args[1:])
	case "org":
		if len(args) < 2 || args[1] != "create" {
			return fmt.Errorf("usage: disburse org create --name NAME [--deposit AMOUNT]")
		}
		return orgCreate(ctx, args[2:])
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
