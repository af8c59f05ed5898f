package main

import (
	"context"
	"flag"
)

// migrate applies the migrations of the configured database and exits.
// serve applies them too on start; this is for deployments that migrate first.
func migrate(ctx context.Context, args []string) error {
	var c config
	fs := flag.NewFlagSet("migrate", flag.ContinueOnError)
	c.databaseFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	store, err := openStore(ctx, c.DatabaseURL)
	if err != nil {
		return err
	}
	return store.Close()
}
