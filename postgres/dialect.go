package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/disburse/disburse/sqlstore"
)

// maxBulkRows bounds the rows of one bulk statement. unnest takes arrays
// of any length; the bound only keeps one statement's parameters (about
// 200 bytes a row for a payment) to tens of megabytes.
const maxBulkRows = 200_000

// minCopyRows is where COPY starts to pay: it costs a round trip more than
// one INSERT (pgx asks for the column types first), and saves a large
// share of an INSERT ... SELECT FROM unnest of many rows (BenchmarkBatch100k's
// add phase; docs/benchmarks.md).
const minCopyRows = 1000

// The SQLSTATEs the store tells apart (PostgreSQL, appendix A).
const (
	uniqueViolation      = "23505"
	checkViolation       = "23514"
	serializationFailure = "40001"
	deadlockDetected     = "40P01"
)

// Dialect is PostgreSQL's sqlstore.Dialect. The zero value is ready to use.
type Dialect struct {
	bulkRows int // rows per bulk statement; 0 is maxBulkRows (tests make it small)
	copyRows int // fewest rows copied; 0 is minCopyRows (tests make it 1)
}

var _ sqlstore.Dialect = Dialect{}

// Rebind numbers the placeholders: $1, $2, ...
func (Dialect) Rebind(query string) string { return sqlstore.RebindDollar(query) }

// LockClause takes row locks. They are NO KEY UPDATE locks: every locked
// row is updated but never has its key changed or is deleted, and a FOR
// UPDATE lock would also block the foreign-key checks of rows that point
// at it (a new batch of a payout account that a submit holds would wait
// for the whole submit). skipLocked is for claiming work (due legs,
// notifications): a row another replica has claimed is passed over, not
// waited for.
func (Dialect) LockClause(skipLocked bool) string {
	if skipLocked {
		return " FOR NO KEY UPDATE SKIP LOCKED"
	}
	return " FOR NO KEY UPDATE"
}

// Rows passes each column as one typed array parameter and zips them back
// into rows with unnest ... WITH ORDINALITY: one statement binds one
// parameter per column whatever the number of rows, and its text does not
// depend on the number, so pgx prepares it once per connection.
func (Dialect) Rows(cols []sqlstore.Column, n int) (string, []any, error) {
	var b strings.Builder
	b.WriteString("(SELECT * FROM unnest(")
	args := make([]any, len(cols))
	for i, c := range cols {
		arr, typ, err := array(c, n)
		if err != nil {
			return "", nil, err
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("?::" + typ)
		args[i] = arr
	}
	b.WriteString(") WITH ORDINALITY AS u(")
	for _, c := range cols {
		b.WriteString(c.Name + ", ")
	}
	b.WriteString("ord))")
	return b.String(), args, nil
}

// array returns the first n values of c as a Go slice that pgx encodes
// as the array type it also returns. Ids are parsed here, in Go, so that
// they travel as 16 binary bytes each.
func array(c sqlstore.Column, n int) (any, string, error) {
	switch c.Type {
	case sqlstore.TypeText:
		return fill(c, n, "text[]", as[string])
	case sqlstore.TypeOptText:
		return fill(c, n, "text[]", nullable(func(s string) pgtype.Text { return pgtype.Text{String: s, Valid: true} }))
	case sqlstore.TypeInt:
		return fill(c, n, "bigint[]", as[int64])
	case sqlstore.TypeBool:
		return fill(c, n, "boolean[]", as[bool])
	case sqlstore.TypeTime:
		return fill(c, n, "bigint[]", nullable(func(i int64) pgtype.Int8 { return pgtype.Int8{Int64: i, Valid: true} }))
	case sqlstore.TypeID:
		return fill(c, n, "uuid[]", toUUID)
	}
	return nil, "", fmt.Errorf("postgres: bulk column %s: unknown type %d", c.Name, c.Type)
}

// as accepts a value of type T.
func as[T any](v any) (T, bool) {
	t, ok := v.(T)
	return t, ok
}

// nullable accepts nil, as the zero (NULL) P, or a T, as valid(t).
func nullable[T, P any](valid func(T) P) func(any) (P, bool) {
	return func(v any) (P, bool) {
		var null P
		if v == nil {
			return null, true
		}
		t, ok := v.(T)
		if !ok {
			return null, false
		}
		return valid(t), true
	}
}

// toUUID converts an id value (a string, nil for NULL) to a uuid.
func toUUID(v any) (pgtype.UUID, bool) {
	if v == nil {
		return pgtype.UUID{}, true
	}
	s, _ := v.(string)
	u, err := uuid.Parse(s)
	return pgtype.UUID{Bytes: u, Valid: err == nil}, err == nil
}

// fill collects the first n values of c with conv, which reports whether
// it accepts a value, into a []T to pass as an array of type typ.
func fill[T any](c sqlstore.Column, n int, typ string, conv func(any) (T, bool)) (any, string, error) {
	out := make([]T, n)
	for i := range n {
		v, ok := conv(c.Value(i))
		if !ok {
			return nil, "", fmt.Errorf("postgres: bulk column %s: row %d: unexpected %T %[3]v", c.Name, i, c.Value(i))
		}
		out[i] = v
	}
	return out, typ, nil
}

// MaxBulkRows bounds the rows of one bulk statement.
func (d Dialect) MaxBulkRows() int {
	if d.bulkRows > 0 {
		return d.bulkRows
	}
	return maxBulkRows
}

var _ sqlstore.UniqueExternalIDs = Dialect{}

// ExternalIDsUnique: migration 00007's unique index refuses a taken
// external id.
func (Dialect) ExternalIDsUnique() {}

// TextArray: pgx sends a []string as one text[] parameter.
func (Dialect) TextArray(ss []string) any { return ss }

var _ sqlstore.ArrayMatcher = Dialect{}

// Violation reads the SQLSTATE.
func (Dialect) Violation(err error) sqlstore.Violation {
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
func (Dialect) Retryable(err error) bool {
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
func (Dialect) Unreachable(err error) bool {
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

// TxOptions: writes run at READ COMMITTED: the use cases lock the rows
// they decide on (batch, payout account, payments: LockClause), so each
// statement seeing the latest committed rows is what they need, with no
// serialization failures to retry. A read is REPEATABLE READ, READ ONLY:
// all its statements see one snapshot (a batch and its payments agree).
func (Dialect) TxOptions(readOnly bool) *sql.TxOptions {
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
