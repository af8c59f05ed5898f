package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/disburse/disburse/sqlite"
)

// backup copies a SQLite database to a new file while serve runs
// (sqlite.Backup). PostgreSQL has its own tools, which this does not
// replace (docs/operations.md "Backups").
func backup(ctx context.Context, args []string) error {
	var c config
	var to string
	fs := flag.NewFlagSet("backup", flag.ContinueOnError)
	c.databaseFlag(fs)
	fs.StringVar(&to, "to", "", "the new file to write the copy to; an existing file is refused")
	if err := parse(fs, args); err != nil {
		return err
	}
	if to == "" {
		return errors.New("backup: --to FILE is required")
	}
	path, sqliteURL, err := databaseURL(c.DatabaseURL)
	switch {
	case err != nil:
		return err
	case !sqliteURL:
		return errors.New("backup: copies SQLite databases only; back up PostgreSQL with its own tools: a base backup (pg_basebackup) with WAL archiving, or pg_dump -Fc for a small database (docs/operations.md \"Backups\")")
	}
	if err := sqlite.Backup(ctx, path, to); err != nil {
		return err
	}
	fmt.Printf("backed up %s to %s\n", path, to)
	return nil
}
