// Package postgres is the production store: disburse.Store on PostgreSQL,
// through sqlstore, with pgx. Several processes may share one database
// (docs/api.md section 9): migrations run under an advisory lock, money moves
// under row locks, and background work is claimed with SKIP LOCKED.
package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"github.com/disburse/disburse/sqlstore"
)

//go:embed migrations/*.sql
var migrations embed.FS

// defaultMaxConns sizes the pool when the URL sets no pool_max_conns:
// enough for the HTTP handlers and the workers of one process, few enough
// that several replicas stay well under PostgreSQL's max_connections (100).
const defaultMaxConns = 10

// defaultConnectTimeout and defaultStatementTimeout apply unless the URL
// sets connect_timeout (seconds) or statement_timeout (PostgreSQL's
// units; "0" turns it off). A statement of the service takes well under a
// second; the bound is for one that waits on something that will not come.
const (
	defaultConnectTimeout   = 5 * time.Second
	defaultStatementTimeout = "60s"
)

// Open migrates the database at url (a postgres:// URL, pgx's keywords
// included: pool_max_conns, ...) and returns a store on it.
func Open(ctx context.Context, url string) (*sqlstore.Store, error) {
	return open(ctx, url, Engine{})
}

func open(ctx context.Context, url string, e Engine) (*sqlstore.Store, error) {
	if _, err := Migrate(ctx, url); err != nil {
		return nil, err
	}
	listenCfg, err := listenConfig(url)
	if err != nil {
		return nil, err
	}
	db, err := openDB(ctx, url, defaultStatementTimeout)
	if err != nil {
		return nil, err
	}
	listening, err := listen(ctx, listenCfg)
	if err != nil {
		db.Close()
		return nil, err
	}
	// One pool for both: PostgreSQL runs reads beside writes on any
	// connection, and Read's REPEATABLE READ gives it its snapshot. The
	// token cache hears the other replicas' auth writes (tokens.go).
	s := sqlstore.New(db, db, e, sqlstore.WatchTokens(announceTokens, watchTokens(listenCfg, listening)))
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Migrate brings the database at url to the latest schema with the
// embedded migrations, and says what it applied.
func Migrate(ctx context.Context, url string) (sqlstore.Migrated, error) {
	// No statement timeout unless the URL sets one: a migration may
	// rewrite a large table, which the service's own statements never do.
	db, err := openDB(ctx, url, "")
	if err != nil {
		return sqlstore.Migrated{}, err
	}
	defer db.Close()
	return migrate(ctx, db)
}

// Migrations returns the embedded migrations, one goose SQL file each.
// pgtest names its template database by their hash.
func Migrations() fs.FS {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		panic(err) // the directory is embedded: it exists
	}
	return dir
}

// migrate runs the migrations holding a session-level advisory lock, so
// that replicas starting at once apply them one after the other: the first
// migrates, the others then find nothing to do. The lock is polled every
// second (goose's default is every 5) for up to five minutes.
func migrate(ctx context.Context, db *sql.DB) (sqlstore.Migrated, error) {
	locker, err := lock.NewPostgresSessionLocker(lock.WithLockTimeout(1, 300))
	if err != nil {
		return sqlstore.Migrated{}, fmt.Errorf("postgres: migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectPostgres, db, Migrations(),
		goose.WithDisableGlobalRegistry(true), goose.WithSessionLocker(locker))
	if err != nil {
		return sqlstore.Migrated{}, fmt.Errorf("postgres: migrations: %w", err)
	}
	m, err := sqlstore.Migrate(ctx, p)
	if err != nil {
		return sqlstore.Migrated{}, fmt.Errorf("postgres: migrate: %w", err)
	}
	return m, nil
}

// openDB returns a database/sql handle on a pgx pool for url.
func openDB(ctx context.Context, url, statementTimeout string) (*sql.DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// pgx's error leaves the password out; ours leaves the URL out.
		return nil, fmt.Errorf("postgres: parse database URL: %w", err)
	}
	if !strings.Contains(url, "pool_max_conns") {
		cfg.MaxConns = defaultMaxConns
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["application_name"]; !ok {
		cfg.ConnConfig.RuntimeParams["application_name"] = "disburse" // names our sessions in pg_stat_activity
	}
	// The service's statements find rows by index. Where the planner's
	// estimates are wrong (no statistics yet, as on a fresh table or with
	// autovacuum off) a lookup of one row can cost out above
	// jit_above_cost, and compiling it costs far more than running it
	// (docs/benchmarks.md has the figures). A URL that sets jit keeps its own.
	if _, ok := cfg.ConnConfig.RuntimeParams["jit"]; !ok {
		cfg.ConnConfig.RuntimeParams["jit"] = "off"
	}
	// Without a bound, a server that accepts and never answers holds
	// start-up, and every request, for ever (docs/operations.md).
	if !strings.Contains(url, "connect_timeout") {
		cfg.ConnConfig.ConnectTimeout = defaultConnectTimeout
	}
	if _, ok := cfg.ConnConfig.RuntimeParams["statement_timeout"]; !ok && statementTimeout != "" {
		cfg.ConnConfig.RuntimeParams["statement_timeout"] = statementTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect: %w", err)
	}
	// What stdlib.OpenDBFromPool does, but closing the *sql.DB closes the
	// pool too, so that sqlstore.Store.Close releases every connection.
	db := sql.OpenDB(poolConnector{stdlib.GetPoolConnector(pool), pool})
	db.SetMaxIdleConns(0) // idle connections wait in the pgx pool, not in database/sql
	return db, nil
}

// poolConnector is a driver.Connector over a pgx pool that owns the pool:
// database/sql closes a connector that is an io.Closer when the DB closes.
type poolConnector struct {
	driver.Connector
	pool *pgxpool.Pool
}

func (c poolConnector) Close() error {
	c.pool.Close()
	return nil
}

var _ io.Closer = poolConnector{}
