package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/disburse/disburse/sqlstore"
)

// Engine is PostgreSQL's sqlstore.Engine. The zero value is ready to use.
type Engine struct {
	bulkRows int // rows per bulk statement; 0 is maxBulkRows (tests make it small)
	copyRows int // fewest rows copied; 0 is minCopyRows (tests make it 1)
}

var _ sqlstore.Engine = Engine{}

// The SQLSTATEs the store tells apart (PostgreSQL, appendix A).
const (
	uniqueViolation      = "23505"
	checkViolation       = "23514"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
	queryCanceled        = "57014" // statement_timeout, or a cancel
	lockNotAvailable     = "55P03" // lock_timeout
)

// Violation reads the SQLSTATE.
func (Engine) Violation(err error) sqlstore.Violation {
	switch sqlState(err) {
	case uniqueViolation:
		return sqlstore.UniqueViolation
	case checkViolation:
		return sqlstore.CheckViolation
	}
	return sqlstore.NoViolation
}

// Retryable: a serialization failure or a deadlock rolled the whole
// transaction back, and running it again may well succeed. Writes run at
// READ COMMITTED, so in practice these are deadlocks: the use cases take
// their locks in one order (docs/ledger.md, "Lock order"), but a submit's
// pages lock wallets page by page, and another submit paying the same
// members may take them in another order.
func (Engine) Retryable(err error) bool {
	switch sqlState(err) {
	case serializationFailure, deadlockDetected:
		return true
	}
	return false
}

// Unreachable: the server refused or did not answer the connection
// (pgconn.ConnectError, a network error), closed it (class 08), or is
// shutting it down or cannot take it (57P01 admin_shutdown, 57P02
// crash_shutdown, 57P03 cannot_connect_now, as pg_terminate_backend and a
// restart send); or pgx says the statement never reached the server.
func (Engine) Unreachable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if pgconn.SafeToRetry(err) || errors.Is(err, driver.ErrBadConn) {
		return true
	}
	var connect *pgconn.ConnectError
	var network net.Error
	if errors.As(err, &connect) || errors.As(err, &network) {
		return true
	}
	switch code := sqlState(err); {
	case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03":
		return true
	}
	// A connection the server closed under a statement, without a FATAL
	// message to read: pgx reports a closed conn or a cut stream.
	return errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// Busy: a statement ran past statement_timeout or waited past
// lock_timeout (a table lock held by another session, say). Either rolls
// the transaction back; running it again at once would wait again.
func (Engine) Busy(err error) bool {
	switch sqlState(err) {
	case queryCanceled, lockNotAvailable:
		return true
	}
	return false
}

// TxOptions: writes run at READ COMMITTED: the use cases lock the rows
// they decide on (batch, payout account, payments: LockClause), so each
// statement seeing the latest committed rows is what they need, with no
// serialization failures to retry. A read is REPEATABLE READ, READ ONLY:
// all its statements see one snapshot (a batch and its payments agree).
func (Engine) TxOptions(readOnly bool) *sql.TxOptions {
	if readOnly {
		return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
	}
	return &sql.TxOptions{Isolation: sql.LevelReadCommitted}
}

// sqlState is err's SQLSTATE, or "" when PostgreSQL did not report it.
func sqlState(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// paymentCursor is the one cursor a transaction opens at a time.
const paymentCursor = "payment_pages"

// PaymentPages runs the query once, as a cursor, and fetches its rows a
// page at a time: a cursor reads the snapshot of its DECLARE, whatever
// the transaction changes after. A keyset query per page, as on SQLite,
// is at the planner's mercy: without statistics on payments (a table just
// filled, before autovacuum analysed it) it answered each page by fetching
// and sorting every later payment of the batch, which is quadratic in the
// batch (docs/benchmarks.md).
//
// A page is read through the pgx connection itself, not database/sql,
// which would turn each of its values into a driver.Value first
// (docs/benchmarks.md); p.Use runs after, once database/sql has the
// connection back.
func (Engine) PaymentPages(ctx context.Context, c sqlstore.Conn, p *sqlstore.PaymentPagesParams) error {
	if _, err := c.Exec(ctx, `DECLARE `+paymentCursor+` NO SCROLL CURSOR FOR `+p.Query+` ORDER BY p.seq`, p.Args...); err != nil {
		return err
	}
	fetch := fmt.Sprintf(`FETCH FORWARD %d FROM %s`, p.Size, paymentCursor)
	for {
		var n int
		err := c.Raw(ctx, func(driverConn any) error {
			conn, ok := driverConn.(*stdlib.Conn)
			if !ok {
				return fmt.Errorf("postgres: payment pages: not a pgx connection: %T", driverConn)
			}
			rows, err := conn.Conn().Query(ctx, fetch)
			if err != nil {
				return err
			}
			n, _, err = p.Read(newPageRows(rows))
			return err
		})
		if err == nil {
			err = p.Use()
		}
		if err != nil {
			return err
		}
		if n < p.Size || p.OnePage {
			break
		}
	}
	_, err := c.Exec(ctx, `CLOSE `+paymentCursor)
	return err
}

// Migrations returns the embedded migrations (postgres.Migrations).
func (Engine) Migrations() fs.FS { return Migrations() }

// pgxRows are pgx's rows as sqlstore.Rows, whose Close returns an error.
type pgxRows struct{ pgx.Rows }

func (r pgxRows) Close() error {
	r.Rows.Close()
	return r.Rows.Err()
}
