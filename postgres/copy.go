package postgres

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/disburse/disburse/internal/pgcopy"
	"github.com/disburse/disburse/sqlstore"
)

// minCopyRows is where COPY starts to pay: it saves a large share of an
// INSERT ... SELECT FROM unnest of many rows (BenchmarkBatch100k's add
// phase; docs/benchmarks.md). It was set when pgx's CopyFrom, which asked
// the server for the columns' types first, sent the rows: a round trip
// more than an INSERT, which COPY no longer costs.
const minCopyRows = 1000

// InsertRows streams the rows with COPY ... FROM STDIN (binary) on the pgx
// connection under the transaction: COPY skips the planner and the unnest
// arrays that an INSERT ... SELECT goes through. The rows are encoded here
// (copyReader), not by pgx's CopyFrom, which asks the server for the
// columns' types first and finds an encoder for every value it sends
// (docs/benchmarks.md, "The add and the stores"). Rows go in the order
// given, so an identity column follows it. Fewer than minCopyRows rows go
// through INSERT ... SELECT: below it the copy's setup costs more than it
// saves.
func (e Engine) InsertRows(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int) error {
	return e.InsertRowsAsReady(ctx, c, table, cols, n, sqlstore.AllReady(n))
}

// InsertRowsAsReady is InsertRows whose COPY encodes each row once ready
// has reported it: the rows' database work runs while the caller fills
// the rest (docs/benchmarks.md, "The add and the stores"). Fewer than
// minCopyRows rows are waited for, then inserted by INSERT ... SELECT.
func (e Engine) InsertRowsAsReady(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int, ready func() (int, error)) error {
	if n < e.minCopy() {
		if err := sqlstore.WaitReady(n, ready); err != nil {
			return err
		}
		return c.InsertSelect(ctx, table, cols, n)
	}
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	query := pgcopy.Query(table, names)
	return c.Raw(ctx, func(driverConn any) error {
		conn, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: copy into %s: not a pgx connection: %T", table, driverConn)
		}
		// The server answers a copy the reader ended with an error of
		// its own (query_canceled); the caller's is the one to return.
		// pgx reads on a goroutine of its own, which a broken connection
		// leaves behind.
		var readyErr atomic.Pointer[error]
		_, err := conn.Conn().PgConn().CopyFrom(ctx, newCopyReader(table, cols, n, func() (int, error) {
			k, err := ready()
			if err != nil {
				readyErr.Store(&err)
			}
			return k, err
		}), query)
		if failed := readyErr.Load(); failed != nil {
			return *failed
		}
		return err
	})
}

// minCopy is the fewest rows InsertRows copies.
func (e Engine) minCopy() int {
	if e.copyRows > 0 {
		return e.copyRows
	}
	return minCopyRows
}
