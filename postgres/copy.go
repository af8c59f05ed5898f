package postgres

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/disburse/disburse/sqlstore"
)

var _ sqlstore.Copier = Dialect{}

var _ sqlstore.Cursors = Dialect{}

// CursorsKeepTheirSnapshot: PostgreSQL's cursors read the snapshot of
// their DECLARE, so PaymentPages fetches pages of one query run once.
func (Dialect) CursorsKeepTheirSnapshot() {}

// CopyMinRows is the fewest rows InsertPayments, InsertTransfers and
// InsertNotifications copy rather than insert.
func (d Dialect) CopyMinRows() int {
	if d.copyRows > 0 {
		return d.copyRows
	}
	return minCopyRows
}

// CopyRows streams the rows with COPY ... FROM STDIN (binary) on the pgx
// connection under conn, inside the transaction open on it: COPY skips
// the planner and the unnest arrays that an INSERT ... SELECT goes
// through. Rows go in the order given, so an identity column follows it.
func (Dialect) CopyRows(ctx context.Context, conn *sql.Conn, table string, cols []sqlstore.Column, n int) error {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return conn.Raw(func(driverConn any) error {
		c, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: copy into %s: not a pgx connection: %T", table, driverConn)
		}
		_, err := c.Conn().CopyFrom(ctx, pgx.Identifier{table}, names, pgx.CopyFromSlice(n, copyRow(cols)))
		return err
	})
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
