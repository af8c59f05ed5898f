// Command disburse is the batch payout service: `disburse serve` runs the
// API and the background workers; the other subcommands help run it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/disburse/disburse"
)

const usage = `usage: disburse <command> [flags]

commands:
  serve        run the HTTP API and the background workers (--demo: create a demo organisation)
  migrate      apply the database migrations, print each applied, and exit
  backup       copy a SQLite database to a new file while serve runs (--to FILE)
  healthcheck  ask the local serve for /readyz; exit 0 when ready (a container's HEALTHCHECK)
  org create   create an organisation with a deposit and an API key, print them
  version      the module version and VCS revision of this binary (also --version)
  user create  create a portal user (operator or organisation) and print its password once
  operator-token create|revoke|list
               named tokens of the operator API: create prints the token once (--name NAME)
  bench        benchmark the API in-process: add, submit, register, reverse against their floors (--http-load: read endpoints under load)

for organisations, against a running service (--api-url, --api-key, --json):
  batches      upload a CSV file of payments; list, get, payments, submit, cancel; export a batch's results as CSV
  accounts     the organisation's payout accounts

Exit codes: 0 done, 1 usage, 2 validation failures, 3 service error.

Run 'disburse <command> -h' for a command's flags. Every flag has a DISBURSE_* variable.
`

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:])
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	default:
		fmt.Fprintln(os.Stderr, "disburse:", describe(err))
		os.Exit(asExit(err))
	}
}

// describe spells out a validation error's field failures, which the
// error's own text only counts.
func describe(err error) string {
	var e *disburse.Error
	if !errors.As(err, &e) || len(e.Fields) == 0 {
		return err.Error()
	}
	var b strings.Builder
	b.WriteString(err.Error())
	for _, f := range e.Fields {
		fmt.Fprintf(&b, "\n  %s %q: %s", f.FieldName, f.FieldValue, f.ErrorMessage)
	}
	return b.String()
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
	case "backup":
		return backup(ctx, args[1:])
	case "healthcheck":
		return healthcheck(ctx, args[1:])
	case "bench":
		return benchmark(ctx, args[1:])
	case "org":
		if len(args) < 2 || args[1] != "create" {
			return fmt.Errorf("usage: disburse org create --name NAME [--deposit AMOUNT]")
		}
		return orgCreate(ctx, args[2:])
	case "batches":
		return batches(ctx, args[1:], os.Stdout, os.Stderr)
	case "accounts":
		return accounts(ctx, args[1:], os.Stdout, os.Stderr)
	case "version", "--version":
		printVersion(os.Stdout)
		return nil
	case "user":
		return runUser(ctx, args[1:])
	case "operator-token":
		return runOperatorToken(ctx, args[1:], os.Stdout)
	case "help", "-h", "--help":
		fmt.Print(usage)
		return nil
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
