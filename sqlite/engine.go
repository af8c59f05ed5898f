package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"slices"
	"strings"
	"time"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/disburse/disburse/sqlstore"
)

// Engine is SQLite's sqlstore.Engine. The zero value is ready to use.
type Engine struct {
	bulkRows int // rows per bulk statement; 0 is maxBulkRows (tests make it small)
	// busyTimeout is how long a connection waits for another's lock; 0
	// is defaultBusyTimeout (tests make it short).
	busyTimeout time.Duration
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

// Busy: another connection (another process) held the database's lock
// past busy_timeout (SQLITE_BUSY), or a table's lock (SQLITE_LOCKED), in
// any of their extended forms.
func (Engine) Busy(err error) bool {
	var e *sqlite.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code() & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return true
	}
	return false
}

// TxOptions: a read-only transaction begins DEFERRED on a query_only
// connection; its first read fixes its snapshot (WAL).
func (Engine) TxOptions(readOnly bool) *sql.TxOptions {
	return &sql.TxOptions{ReadOnly: readOnly}
}

// maxVariables is SQLite's bound on the parameters of one statement
// (SQLITE_MAX_VARIABLE_NUMBER).
const maxVariables = 32766

// InsertRowsAsReady waits for every row, then inserts them: a write here
// holds the one writer, which must not wait on the caller.
func (e Engine) InsertRowsAsReady(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int, ready func() (int, error)) error {
	if err := sqlstore.WaitReady(n, ready); err != nil {
		return err
	}
	return e.InsertRows(ctx, c, table, cols, n)
}

// InsertRows binds the rows to a multi-row INSERT ... VALUES, as many rows
// a statement as its parameters allow (and MaxBulkRows), rather than passing them as JSON
// (Rows): SQLite then neither parses the JSON nor extracts each value
// from it, much of an add's CPU (docs/benchmarks.md, "SQLite inserts
// with multi-row `VALUES`"). Rows
// go in the order given, so the rowid follows it.
//
// The full chunks share one text, prepared once and run for each, as
// the bench's floor does: parsing a statement of 32,766 parameters again
// for each chunk showed in an add's profile. Only a last, shorter chunk
// is parsed on its own. (The connection's statement cache leaves such
// long texts out, so the call keeps its own.)
func (e Engine) InsertRows(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int) (err error) {
	per := max(1, min(e.MaxBulkRows(), maxVariables/len(cols)))
	names := make([]string, len(cols))
	for k, col := range cols {
		names[k] = col.Name
	}
	row := "(" + strings.TrimSuffix(strings.Repeat("?, ", len(cols)), ", ") + ")"
	insert := func(rows int) string {
		return "INSERT INTO " + table + " (" + strings.Join(names, ", ") + ") VALUES " +
			strings.TrimSuffix(strings.Repeat(row+", ", rows), ", ")
	}
	var full *sql.Stmt
	defer func() {
		if full != nil {
			err = errors.Join(err, full.Close())
		}
	}()
	var args []any
	for start := 0; start < n; start += per {
		m := min(per, n-start)
		args = args[:0]
		for i := start; i < start+m; i++ {
			for _, col := range cols {
				args = append(args, col.Value(i))
			}
		}
		if m < per {
			if _, err := c.Exec(ctx, insert(m), args...); err != nil {
				return err
			}
			continue
		}
		if full == nil {
			if full, err = c.Prepare(ctx, insert(per)); err != nil {
				return err
			}
		}
		if _, err := full.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// PaymentPages runs a keyset query per page: the next size payments after
// the last one read, in seq order, which SQLite's planner always answers
// by walking the (batch_id, seq) index from there. The payments a page
// changed lie behind the key, so the next page does not see them.
func (Engine) PaymentPages(ctx context.Context, c sqlstore.Conn, p *sqlstore.PaymentPagesParams) error {
	next, nextArgs := p.Query+` ORDER BY p.seq LIMIT ?`, append(slices.Clip(p.Args), p.Size)
	for {
		rows, err := c.Query(ctx, next, nextArgs...)
		if err != nil {
			return err
		}
		n, last, err := p.Read(sqlstore.SQLPageRows(rows))
		if err == nil {
			err = p.Use()
		}
		if err != nil || n < p.Size || p.OnePage {
			return err
		}
		next = p.Query + ` AND p.seq > (SELECT seq FROM payments WHERE id = ?) ORDER BY p.seq LIMIT ?`
		nextArgs = append(slices.Clip(p.Args), last, p.Size)
	}
}

// Pipeline runs stmts one after another: SQLite runs in process, with no
// round trip to save.
func (Engine) Pipeline(ctx context.Context, c sqlstore.Conn, stmts []sqlstore.Statement) error {
	return c.RunEach(ctx, stmts)
}
