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

// commands maps each command's name to what runs it with the arguments
// after the name.
var commands = map[string]func(ctx context.Context, args []string) error{
	"serve":       serve,
	"migrate":     migrate,
	"backup":      backup,
	"healthcheck": healthcheck,
	"bench":       benchmark,
	"org": func(ctx context.Context, args []string) error {
		if len(args) < 1 || args[0] != "create" {
			return fmt.Errorf("usage: disburse org create --name NAME [--deposit AMOUNT]")
		}
		return orgCreate(ctx, args[1:])
	},
	"batches": func(ctx context.Context, args []string) error {
		return batches(ctx, args, os.Stdout, os.Stderr)
	},
	"accounts": func(ctx context.Context, args []string) error {
		return accounts(ctx, args, os.Stdout, os.Stderr)
	},
	"version":   printVersionCommand,
	"--version": printVersionCommand,
	"user":      runUser,
	"operator-token": func(ctx context.Context, args []string) error {
		return runOperatorToken(ctx, args, os.Stdout)
	},
	"help":   printUsage,
	"-h":     printUsage,
	"--help": printUsage,
}

func printVersionCommand(context.Context, []string) error {
	printVersion(os.Stdout)
	return nil
}

func printUsage(context.Context, []string) error {
	fmt.Print(usage)
	return nil
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("no command given")
	}
	if command, ok := commands[args[0]]; ok {
		return command(ctx, args[1:])
	}
	fmt.Fprint(os.Stderr, usage)
	return fmt.Errorf("unknown command %q", args[0])
}
