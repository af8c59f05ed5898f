package sqlstore

import (
	"context"
	"database/sql"
	"io/fs"
	"time"
)

// Engine is one SQL engine as the store uses it: its syntax (Dialect), how
// it reports failures, its transactions, and the few operations it does its
// own way. sqlite/ and postgres/ each implement all of it, as riverqueue/river's
// drivers do: nothing is optional and nothing is found by type assertion.
// Where an operation is the same plain SQL on an engine, its method calls
// the shared statement (Conn.InsertSelect).
type Engine interface {
	Dialect

	// Violation classifies err as a constraint violation, by error code
	// (SQLite extended result code, PostgreSQL SQLSTATE), never by message.
	Violation(err error) Violation
	// Retryable reports whether a transaction that failed with err may be
	// run again: serialization failures and deadlocks.
	Retryable(err error) bool
	// Unreachable reports whether err says the database cannot be reached
	// or the connection was lost (refused, timed out, terminated by the
	// server): nothing of a transaction that had not sent COMMIT is kept.
	Unreachable(err error) bool
	// Busy reports whether err says the database is there but a statement
	// gave up waiting: for a lock another transaction holds, or past the
	// statement's time limit. The transaction is rolled back: nothing of
	// it is kept.
	Busy(err error) bool
	// TxOptions returns the options of a write or read-only transaction.
	TxOptions(readOnly bool) *sql.TxOptions

	// InsertRows inserts the n rows of cols into table, in row order (an
	// identity column follows it), in c's transaction.
	InsertRows(ctx context.Context, c Conn, table string, cols []Column, n int) error
	// InsertRowsAsReady is InsertRows of rows that the caller fills while
	// it runs: it reads row i only after ready has returned more than i,
	// and ready's error ends it with that error (Tx.InsertPaymentsAsReady).
	// An engine may wait for every row first (WaitReady).
	InsertRowsAsReady(ctx context.Context, c Conn, table string, cols []Column, n int, ready func() (int, error)) error
	// PaymentPages runs p.Query in seq order and hands its rows to p.Read
	// p.Size at a time, calling p.Use after each page's rows are closed,
	// until p.Read reads fewer than p.Size (or after the first page, with
	// p.OnePage). Each page's cost must follow p.Size, not what is left of
	// the query; and p.Use may change the payments p.Read has read without
	// changing which payments later pages hold.
	PaymentPages(ctx context.Context, c Conn, p *PaymentPagesParams) error
	// Pipeline runs stmts in order in c's transaction, in as few round
	// trips as the engine allows, calling each one's Done (and Row for
	// each of a query's rows); it stops at the first failure Done returns.
	// What Together holds back is sent this way (pipeline.go).
	Pipeline(ctx context.Context, c Conn, stmts []Statement) error
	// Migrations returns the engine's embedded goose migrations, which
	// Store.SchemaCurrent compares with what the database has applied.
	Migrations() fs.FS
}

// PaymentPagesParams is what Engine.PaymentPages pages through.
type PaymentPagesParams struct {
	// Query is a SELECT from payments p that ends in its WHERE clause, with
	// ? placeholders; the engine adds the order and the page's bounds.
	Query string
	// Args are Query's arguments.
	Args []any
	// Size is how many payments a page holds.
	Size int
	// Read reads one page's rows.
	Read PageFunc
	// Use runs after each page's rows are closed: what the caller does with
	// the page may run statements of its own.
	Use func() error
	// OnePage stops after the first page: a reader that takes each page in
	// a transaction of its own (Tx.PaymentsAfter), its Query starting
	// after the last payment it read, gets the engine's plan for a page,
	// not the plan of a plain LIMIT (docs/benchmarks.md, "The export's pages").
	OnePage bool
}

// PageFunc reads one page of payments from rows and closes them; it
// returns how many it read and the id of the last. It runs no statement
// of its own: on PostgreSQL the rows are the pgx connection's, read while
// database/sql lends it (Conn.Raw).
type PageFunc func(rows PageRows) (n int, lastID string, err error)

// Rows are a query's rows: *sql.Rows, or an engine's own (a pipeline's,
// a page's), which skip database/sql's conversion of every value into a
// driver.Value (docs/benchmarks.md, "The submit's own CPU, per page").
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close() error
}

// PageRows are the rows of a page of payments, which the store reads a
// column at a time (ColumnValues): PostgreSQL's straight from the bytes
// the server sent, where Scan's conversions into sql.Scanner destinations
// cost more than the decoding itself (docs/benchmarks.md, "The submit's
// own CPU, per page"); SQLite's from its driver's values (SQLPageRows).
type PageRows interface {
	Rows
	Values() ColumnValues
}

// ColumnValues reads column i of the current row in the store's own
// types. A column that cannot be read as asked (of another type) reads
// as the zero value and makes Err non-nil, and it stays so: one check
// after a row's columns are read.
type ColumnValues interface {
	ID(i int) string      // a uuid, in its canonical text; NULL is ""
	Text(i int) string    // NULL is ""
	Int(i int) int64      // NULL is 0
	Bool(i int) bool      // NULL is false
	Time(i int) time.Time // unix microseconds (scan.go); NULL is the zero time
	Err() error
}

// Conn is the transaction an Engine's operation runs in. Its statements
// take ? placeholders, as all of the store's SQL does.
type Conn struct {
	t    *tx
	fail func(error) error // names an insert's failure (tx.insertRows); nil: as it is
}

// Exec runs a statement in the transaction.
func (c Conn) Exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	return c.t.exec(ctx, query, args...)
}

// Query runs a query in the transaction.
func (c Conn) Query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	return c.t.query(ctx, query, args...)
}

// Prepare prepares a statement in the transaction, for one text an
// engine runs many times over (SQLite's full chunks of a multi-row
// INSERT); the caller closes it.
func (c Conn) Prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	if err := c.t.flush(ctx); err != nil {
		return nil, err
	}
	return c.t.tx.PrepareContext(ctx, c.t.e.Rebind(query))
}

// Raw calls f with the driver's connection the transaction is open on, for
// what database/sql has no words for (PostgreSQL's COPY), after what
// Together holds is sent.
func (c Conn) Raw(ctx context.Context, f func(driverConn any) error) error {
	if err := c.t.flush(ctx); err != nil {
		return err
	}
	return c.t.conn.Raw(f)
}

// InsertSelect inserts the n rows of cols into table, in row order, with
// INSERT ... SELECT from the Dialect's Rows, a chunk of MaxBulkRows at a
// time: the plain SQL, the same on every engine.
//
// Inside Together the insert is held (tx.later), and its failure named
// when it is sent.
func (c Conn) InsertSelect(ctx context.Context, table string, cols []Column, n int) error {
	return c.t.bulkLater(ctx, `INSERT INTO `+table+` (`+columnNames(cols)+`) SELECT `+qualified("r", cols)+
		` FROM @rows AS r ORDER BY r.ord`, nil, n, cols, nil, func(_ int64, err error) error {
		if err != nil && c.fail != nil {
			return c.fail(err)
		}
		return err
	})
}

// Violation is the kind of constraint an error violated.
type Violation int

// The violations the store tells apart.
const (
	NoViolation     Violation = iota // not a constraint violation (or one the store does not name)
	UniqueViolation                  // a primary key or unique index
	CheckViolation                   // a CHECK constraint
)
