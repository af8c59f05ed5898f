package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/disburse/disburse/sqlstore"
)

// migrate applies the migrations of the configured database, prints each
// it applied, and exits. serve applies them too on start; this is for
// deployments that migrate first (docs/operations.md "Upgrading a fleet").
func migrate(ctx context.Context, args []string) error {
	var c config
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	c.databaseFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	m, err := migrateDatabase(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	return reportMigrated(os.Stdout, m)
}

// reportMigrated prints one line per migration applied, or that none was
// due. A database that a newer build migrated is an error: this build's
// serve would start on it but never be ready (/readyz).
func reportMigrated(out io.Writer, m sqlstore.Migrated) error {
	for _, a := range m.Applied {
		fmt.Fprintf(out, "applied %05d %s\n", a.Version, a.Name)
	}
	if m.Version > m.Latest {
		return fmt.Errorf("the database is at migration %05d, newer than this build's last, %05d: a newer release migrated it, and this one's replicas will not be ready on it (docs/operations.md \"Upgrading a fleet\")", m.Version, m.Latest)
	}
	if len(m.Applied) == 0 {
		fmt.Fprintf(out, "no migrations due: the database is at %05d\n", m.Version)
	} else {
		fmt.Fprintf(out, "the database is at %05d\n", m.Version)
	}
	return nil
}
