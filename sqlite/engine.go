package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/disburse/disburse/sqlstore"
)

// Engine is SQLite's sqlstore.Engine. The zero value is ready to use.
type Engine struct {
	bulkRows int // rows per bulk statement; 0 is maxBulkRows (tests make it small)
}

var _ sqlstore.Engine = Engine{}

// Violation reads SQLite's extended result code.
func (Engine) Violation(err error) sqlstore.Violation {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return sqlstore.NoViolation
	}
	switch e.Code() {
	case sqlite3.SQLITE_CONSTRAINT_UNIQUE, sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY:
		return sqlstore.UniqueViolation
	case sqlite3.SQLITE_CONSTRAINT_CHECK:
		return sqlstore.CheckViolation
	}
	return sqlstore.NoViolation
}

// Retryable is always false: SQLite has no serialization failures or
// deadlocks here. Writers queue for the one writer connection, and BEGIN
// IMMEDIATE waits busy_timeout for another process's writer.
func (Engine) Retryable(err error) bool { return false }

// Unreachable is always false: the database is a file of this process.
func (Engine) Unreachable(err error) bool { return false }

// TxOptions: a read-only transaction begins DEFERRED on a query_only
// connection; its first read fixes its snapshot (WAL).
func (Engine) TxOptions(readOnly bool) *sql.TxOptions {
	return &sql.TxOptions{ReadOnly: readOnly}
}

// InsertRows is the plain INSERT ... SELECT from Rows.
func (Engine) InsertRows(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int) error {
	return c.InsertSelect(ctx, table, cols, n)
}

// PaymentPages runs a keyset query per page: the next size payments after
// the last one read, in seq order, which SQLite's planner always answers
// by walking the (batch_id, seq) index from there. The payments a page
// changed lie behind the key, so the next page does not see them.
func (Engine) PaymentPages(ctx context.Context, c sqlstore.Conn, query string, args []any, size int, page sqlstore.PageFunc) error {
	next, nextArgs := query+` ORDER BY p.seq LIMIT ?`, append(slices.Clip(args), size)
	for {
		rows, err := c.Query(ctx, next, nextArgs...)
		if err != nil {
			return err
		}
		n, last, err := page(rows)
		if err != nil || n < size {
			return err
		}
		next = query + ` AND p.seq > (SELECT seq FROM payments WHERE id = ?) ORDER BY p.seq LIMIT ?`
		nextArgs = append(slices.Clip(args), last, size)
	}
}
