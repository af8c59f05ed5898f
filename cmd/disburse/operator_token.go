package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
)

const operatorTokenUsage = "usage: disburse operator-token create --name NAME | revoke --name NAME | list"

// runOperatorToken dispatches `disburse operator-token ...`: the operator
// API's named tokens, made on the database directly (docs/operations.md
// "Operator tokens"). Only a token's hash is stored; create prints it once.
func runOperatorToken(ctx context.Context, args []string, stdout io.Writer) error {
	if len(args) < 1 || (args[0] != "create" && args[0] != "revoke" && args[0] != "list") {
		return errors.New(operatorTokenUsage)
	}
	var c config
	fs := flag.NewFlagSet("operator-token "+args[0], flag.ContinueOnError)
	c.databaseFlag(fs)
	name := fs.String("name", "", "the token's name: who or what holds it (create, revoke)")
	if err := parse(fs, args[1:]); err != nil {
		return err
	}
	if args[0] != "list" && *name == "" {
		return fmt.Errorf("--name is required: %s", operatorTokenUsage)
	}
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	ops := operators.New(store, "")
	switch args[0] {
	case "create":
		_, secret, err := ops.CreateToken(ctx, disburse.CommandLine, *name)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "operator token %s\ntoken          %s\n(shown this once; only its hash is stored)\n", *name, secret)
		return nil
	case "revoke":
		if err := ops.RevokeToken(ctx, disburse.CommandLine, *name); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "operator token %s revoked\n", *name)
		return nil
	}
	tokens, err := ops.Tokens(ctx)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCREATED\tLAST USED")
	for _, t := range tokens {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", t.Name, t.CreatedAt.UTC().Format(time.RFC3339), lastUsed(t.LastUsedAt))
	}
	return tw.Flush()
}

// lastUsed is a token's last use, or "never".
func lastUsed(at time.Time) string {
	if at.IsZero() {
		return "never"
	}
	return at.UTC().Format(time.RFC3339)
}
