package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/sqlite"
)

// openStore opens (and migrates) the store a database URL names:
// sqlite:PATH for the embedded default, postgres://… for PostgreSQL.
func openStore(ctx context.Context, url string) (disburse.Store, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		return sqlite.Open(ctx, strings.TrimPrefix(url, "sqlite:"))
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return postgres.Open(ctx, url)
	}
	return nil, fmt.Errorf("database url %q: want sqlite:PATH or postgres://…", url)
}
