// Package sqlite is the embedded store: disburse.Store on a SQLite file,
// through sqlstore, with the pure-Go modernc.org/sqlite driver.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"net/url"
	"runtime"
	"time"

	"github.com/pressly/goose/v3"
	"modernc.org/sqlite"

	"github.com/disburse/disburse/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// Open migrates the SQLite file at path (creating it if need be) and
// returns a store on it. Writes go through one connection, so that
// concurrent Writes queue in Go instead of failing with SQLITE_BUSY; reads
// use a pool of read-only connections, which WAL lets run beside the writer.
func Open(ctx context.Context, path string) (*sqlstore.Store, error) {
	return open(ctx, path, Engine{})
}

func open(ctx context.Context, path string, e Engine) (*sqlstore.Store, error) {
	if _, err := Migrate(ctx, path); err != nil {
		return nil, err
	}
	write, err := openDB(path, true, 1, e.busy())
	if err != nil {
		return nil, err
	}
	read, err := openDB(path, false, max(4, runtime.NumCPU()), e.busy())
	if err != nil {
		write.Close()
		return nil, err
	}
	s := sqlstore.New(write, read, e, sqlstore.PrepareLookups(), sqlstore.OneWriter())
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Migrate brings the SQLite file at path to the latest schema with the
// embedded migrations, creating the file if need be, and says what it
// applied.
func Migrate(ctx context.Context, path string) (sqlstore.Migrated, error) {
	db, err := openDB(path, true, 1, defaultBusyTimeout)
	if err != nil {
		return sqlstore.Migrated{}, err
	}
	defer db.Close()
	dir := Migrations()
	// Out of order: 00004 came after 00005..00007 on SQLite (it is empty,
	// and keeps the version numbers the same as PostgreSQL's), so a file
	// migrated before it must still take it.
	p, err := goose.NewProvider(goose.DialectSQLite3, db, dir, goose.WithDisableGlobalRegistry(true), goose.WithAllowOutofOrder(true))
	if err != nil {
		return sqlstore.Migrated{}, fmt.Errorf("sqlite: migrations: %w", err)
	}
	m, err := sqlstore.Migrate(ctx, p)
	if err != nil {
		return sqlstore.Migrated{}, fmt.Errorf("sqlite: migrate %s: %w", path, err)
	}
	return m, nil
}

// Migrations returns the embedded migrations, one goose SQL file each.
func Migrations() fs.FS {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the directory is embedded: it exists
	}
	return dir
}

// Migrations returns the embedded migrations (sqlite.Migrations).
func (Engine) Migrations() fs.FS { return Migrations() }

// defaultBusyTimeout is how long a connection waits for another
// process's writer before its statement fails with SQLITE_BUSY (503).
const defaultBusyTimeout = 10 * time.Second

// busy is e's busy timeout.
func (e Engine) busy() time.Duration {
	if e.busyTimeout > 0 {
		return e.busyTimeout
	}
	return defaultBusyTimeout
}

// openDB opens a pool of at most conns connections to path. Every
// connection gets its settings from the DSN, so that a connection the pool
// opens later has them too.
func openDB(path string, writer bool, conns int, busy time.Duration) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds())) // wait for another process's writer
	q.Add("_pragma", "foreign_keys(1)")
	if writer {
		q.Add("_pragma", "journal_mode(WAL)")            // readers do not block the writer, nor it them
		q.Add("_pragma", "synchronous(FULL)")            // a commit survives power loss
		q.Add("_pragma", "cache_size(-65536)")           // 64 MiB: bulk statements touch many index pages
		q.Add("_pragma", "journal_size_limit(67108864)") // a big batch's WAL shrinks back to 64 MiB
		q.Set("_txlock", "immediate")                    // take the write lock at BEGIN, never mid-transaction
	} else {
		q.Add("_pragma", "query_only(1)") // a read can never take the write lock
	}
	db := sql.OpenDB(connector{dsn: path + "?" + q.Encode(), driver: &sqlite.Driver{}})
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxLifetime(0) // a SQLite connection is cheap to keep, costly to reopen (schema, cache)
	return db, nil
}
