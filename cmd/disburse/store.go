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
	path, sqliteURL, err := databaseURL(url)
	switch {
	case err != nil:
		return nil, err
	case sqliteURL:
		return sqlite.Open(ctx, path)
	}
	return postgres.Open(ctx, url)
}

// migrateDatabase applies the migrations of the database a URL names, as
// openStore does, and says what it applied.
func migrateDatabase(ctx context.Context, url string) (sqlstore.Migrated, error) {
	path, sqliteURL, err := databaseURL(url)
	switch {
	case err != nil:
		return sqlstore.Migrated{}, err
	case sqliteURL:
		return sqlite.Migrate(ctx, path)
	}
	return postgres.Migrate(ctx, url)
}

// databaseURL checks a database URL: a SQLite one gives its file's path
// and true, a PostgreSQL one false.
func databaseURL(url string) (path string, sqliteURL bool, err error) {
	switch {
	case strings.HasPrefix(url, "sqlite:"):
		path := strings.TrimPrefix(url, "sqlite:")
		switch {
		case strings.TrimSpace(path) == "":
			return "", false, fmt.Errorf("database url %q: sqlite: needs a file path, such as sqlite:disburse.db", url)
		case path == ":memory:" || strings.Contains(path, "mode=memory"):
			// Each pooled connection would get a database of its own.
			return "", false, fmt.Errorf("database url %q: an in-memory SQLite database is not supported (the store opens several connections); use a file, such as sqlite:/tmp/disburse.db", url)
		}
		return path, true, nil
	case strings.HasPrefix(url, "postgres://"), strings.HasPrefix(url, "postgresql://"):
		return "", false, nil
	}
	return "", false, fmt.Errorf("database url %q: want sqlite:PATH or postgres://…", url)
}
