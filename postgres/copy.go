package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/disburse/disburse/sqlstore"
)

// minCopyRows is where COPY starts to pay: it costs a round trip more than
// one INSERT (pgx asks for the column types first), and saves a large
// share of an INSERT ... SELECT FROM unnest of many rows (BenchmarkBatch100k's
// add phase; docs/benchmarks.md).
const minCopyRows = 1000

// InsertRows streams the rows with COPY ... FROM STDIN (binary) on the pgx
// connection under the transaction: COPY skips the planner and the unnest
// arrays that an INSERT ... SELECT goes through. Rows go in the order
// given, so an identity column follows it. Fewer than minCopyRows rows go
// through INSERT ... SELECT: below it the copy's setup costs more than it
// saves.
func (e Engine) InsertRows(ctx context.Context, c sqlstore.Conn, table string, cols []sqlstore.Column, n int) error {
	if n < e.minCopy() {
		return c.InsertSelect(ctx, table, cols, n)
	}
	names := make([]string, len(cols))
	for i, col := range cols {
		names[i] = col.Name
	}
	return c.Raw(ctx, func(driverConn any) error {
		conn, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: copy into %s: not a pgx connection: %T", table, driverConn)
		}
		_, err := conn.Conn().CopyFrom(ctx, pgx.Identifier{table}, names, pgx.CopyFromSlice(n, copyRow(cols)))
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

// copyRow returns the function that builds row i for COPY, each row as it
// is sent, never all of them at once (pgx encodes a row before it asks for
// the next, so one slice serves them all). Ids are parsed into uuids;
// every other value (string, int64, bool, nil) pgx encodes as it is.
func copyRow(cols []sqlstore.Column) func(i int) ([]any, error) {
	row := make([]any, len(cols))
	return func(i int) ([]any, error) {
		for k, c := range cols {
			v := c.Value(i)
			if c.Type == sqlstore.TypeID {
				u, ok := toUUID(v)
				if !ok {
					return nil, fmt.Errorf("postgres: copy column %s: row %d: not a uuid: %v", c.Name, i, v)
				}
				v = u
			}
			row[k] = v
		}
		return row, nil
	}
}
