package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/disburse/disburse/sqlstore"
)

// Pipeline sends stmts as one pgx batch on the connection under the
// transaction: one round trip for all of them, where database/sql would
// wait for each answer before sending the next (docs/benchmarks.md,
// "Registration"). The statements run in order, in the transaction; the
// first failure stops the reading, and the transaction is lost with it.
func (e Engine) Pipeline(ctx context.Context, c sqlstore.Conn, stmts []sqlstore.Statement) error {
	if len(stmts) == 1 {
		return c.RunEach(ctx, stmts)
	}
	return c.Raw(ctx, func(driverConn any) error {
		conn, ok := driverConn.(*stdlib.Conn)
		if !ok {
			return fmt.Errorf("postgres: pipeline: not a pgx connection: %T", driverConn)
		}
		b := &pgx.Batch{}
		for _, s := range stmts {
			b.Queue(s.Query, s.Args...)
		}
		results := conn.Conn().SendBatch(ctx, b)
		err := readResults(results, stmts)
		if cerr := results.Close(); err == nil {
			err = cerr
		}
		return err
	})
}

// readResults reads each statement's answer from results, in order.
func readResults(results pgx.BatchResults, stmts []sqlstore.Statement) error {
	for _, s := range stmts {
		var affected int64
		var err error
		if s.Row != nil {
			var rows pgx.Rows
			if rows, err = results.Query(); err == nil {
				err = eachRow(pgxRows{rows}, s.Row)
			}
		} else {
			var tag interface{ RowsAffected() int64 }
			tag, err = results.Exec()
			if err == nil {
				affected = tag.RowsAffected()
			}
		}
		if s.Done != nil {
			err = s.Done(affected, err)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// eachRow calls row for each of rows and closes them.
func eachRow(rows pgxRows, row func(sqlstore.Rows) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := row(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
