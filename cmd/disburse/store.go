package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// openStore opens (and migrates) the store a database URL names:
// sqlite:PATH for the embedded default, postgres://… for PostgreSQL.
//
// It returns the SQL store itself, not only disburse.Store: it hands each
// feature its own port, the portal's (backoffice.Store), the webhooks'
// (Webhooks), Idempotency-Key's (Idempotency), and the metrics their
// pools and gauges.
func openStore(ctx context.Context, url string) (*sqlstore.Store, error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		switch {
		case strings.TrimSpace(path) == "":
			return nil, fmt.Errorf("database url %q: sqlite: needs a file path, such as sqlite:disburse.db", url)
		case path == ":memory:" || strings.Contains(path, "mode=memory"):
			// Each pooled connection would get a database of its own.
			return nil, fmt.Errorf("database url %q: an in-memory SQLite database is not supported (the store opens several connections); use a file, such as sqlite:/tmp/disburse.db", url)
		}
		return sqlite.Open(ctx, path)
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return postgres.Open(ctx, url)
	}
	return nil, fmt.Errorf("database url %q: want sqlite:PATH or postgres://…", url)
}
