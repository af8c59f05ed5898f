package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/disburse/disburse"
)

// Errors a Tx returns besides disburse.ErrNotFound. The use cases expect
// only ErrDuplicate, from InsertPayments; the others report a bug or a
// race as a 500.
var (
	// ErrDuplicate: an insert collided with an existing key.
	ErrDuplicate = disburse.ErrDuplicate
	// ErrNegativeBalance: transfers would take a balance other than the
	// funding account's below zero.
	ErrNegativeBalance = errors.New("sqlstore: balance would go below zero")
)

// rowsMarker stands in a bulk statement where the dialect's row source goes.
const rowsMarker = "@rows"

// tx is a disburse.Tx over one database/sql transaction, open on conn.
type tx struct {
	tx   *sql.Tx
	conn *sql.Conn // for Conn.Raw: an engine may talk to the driver's connection
	e    Engine
	// tokensChanged: the transaction changed what a kept token says (a
	// key's revocation, the purge, an organisation's default version), so
	// it announces itself and its commit empties the token cache
	// (token_cache.go, token_watch.go).
	tokensChanged bool

	together bool           // inside Together: blind writes are held (pipeline.go)
	held     []Statement    // the writes held, in order
	then     []func() error // what runs once the held are answered (holdRead)
	failed   error          // a held write's failure: the transaction is lost
}

var _ disburse.Tx = (*tx)(nil)

func (t *tx) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.tx.ExecContext(ctx, t.e.Rebind(query), args...)
}

func (t *tx) query(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if err := t.flush(ctx); err != nil {
		return nil, err
	}
	return t.tx.QueryContext(ctx, t.e.Rebind(query), args...)
}

func (t *tx) queryRow(ctx context.Context, query string, args ...any) *sql.Row {
	// A held write's failure is kept in t.failed, which Together returns;
	// the row's own query then fails on PostgreSQL's aborted transaction.
	_ = t.flush(ctx)
	return t.tx.QueryRowContext(ctx, t.e.Rebind(query), args...)
}

// insert runs an INSERT of one row; a key collision is ErrDuplicate.
func (t *tx) insert(ctx context.Context, what, query string, args ...any) error {
	if _, err := t.exec(ctx, query, args...); err != nil {
		if t.e.Violation(err) == UniqueViolation {
			return fmt.Errorf("insert %s: %w", what, ErrDuplicate)
		}
		return fmt.Errorf("insert %s: %w", what, err)
	}
	return nil
}

// insertRows inserts the n rows of cols into table, in row order, the
// engine's way. A key collision is ErrDuplicate.
//
// An insert Together holds fails later, through the same naming.
func (t *tx) insertRows(ctx context.Context, table string, cols []Column, n int) error {
	return t.insertRowsAsReady(ctx, table, cols, n, AllReady(n))
}

// insertRowsAsReady is insertRows of rows that ready hands over in
// order (Engine.InsertRowsAsReady).
func (t *tx) insertRowsAsReady(ctx context.Context, table string, cols []Column, n int, ready func() (int, error)) error {
	fail := func(err error) error {
		var named *insertFailure
		switch {
		case err == nil || errors.As(err, &named):
			return err
		case t.e.Violation(err) == UniqueViolation:
			err = ErrDuplicate
		}
		return &insertFailure{table: table, err: err}
	}
	return fail(t.e.InsertRowsAsReady(ctx, Conn{t: t, fail: fail}, table, cols, n, ready))
}

// AllReady is the ready function of n rows given whole.
func AllReady(n int) func() (int, error) { return func() (int, error) { return n, nil } }

// WaitReady calls ready until it reports all n rows ready, for an engine
// that inserts them only then; it returns ready's error.
func WaitReady(n int, ready func() (int, error)) error {
	for k := 0; k < n; {
		var err error
		if k, err = ready(); err != nil {
			return err
		}
	}
	return nil
}

// insertFailure is a failed insert into table, named once.
type insertFailure struct {
	table string
	err   error
}

func (e *insertFailure) Error() string { return "insert " + e.table + ": " + e.err.Error() }
func (e *insertFailure) Unwrap() error { return e.err }

// update runs an UPDATE of one row by key; no such row is ErrNotFound.
func (t *tx) update(ctx context.Context, what, query string, args ...any) error {
	return t.one(ctx, "update "+what, query, args...)
}

// delete runs a DELETE of one row by key; no such row is ErrNotFound.
func (t *tx) delete(ctx context.Context, what, query string, args ...any) error {
	return t.one(ctx, "delete "+what, query, args...)
}

// one runs a statement that changes one row; none is ErrNotFound. doing
// names it in errors.
func (t *tx) one(ctx context.Context, doing, query string, args ...any) error {
	res, err := t.exec(ctx, query, args...)
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: %w", doing, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: %w", doing, disburse.ErrNotFound)
	}
	return nil
}

// found wraps the error of a lookup by key: no row is ErrNotFound.
func found(what string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sql.ErrNoRows):
		return fmt.Errorf("%s: %w", what, disburse.ErrNotFound)
	default:
		return fmt.Errorf("%s: %w", what, err)
	}
}

// byKey runs a bulk query over keys (the one column key of its rows) and
// returns what scan reads of each row, by what keyOf says is its key.
func byKey[T any](ctx context.Context, t *tx, what, query string, keys []string, key Column,
	scan func(*sql.Rows) (T, error), keyOf func(T) string) (map[string]T, error) {
	out := make(map[string]T, len(keys))
	_, err := t.bulk(ctx, query, nil, len(keys), []Column{key}, func(r *sql.Rows) error {
		v, err := scan(r)
		out[keyOf(v)] = v
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// list runs a query and collects one value per row with scan.
func list[T any](ctx context.Context, t *tx, what string, scan func(*sql.Rows) (T, error), query string, args ...any) ([]T, error) {
	rows, err := t.query(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return collect(what, rows, nil, scan)
}

// collect appends every row of rows, read with scan, to out and closes them.
func collect[T any, R Rows](what string, rows R, out []T, scan func(R) (T, error)) ([]T, error) {
	err := forEach(rows, func(r R) error {
		v, err := scan(r)
		out = append(out, v)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return out, nil
}

// forEach calls fn for every row of rows and closes them.
func forEach[R Rows](rows R, fn func(R) error) error {
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}

// bulk runs query once per chunk of n rows, with the dialect's row source
// for cols in place of the @rows marker, which the query aliases. args are
// the query's own arguments, in order; the row source's are spliced in
// where the marker stands. With each nil the query is executed; otherwise
// each is called for every result row. It returns the rows affected.
//
// A query that joins the rows to a table writes "@rows AS r CROSS JOIN
// table": SQLite then loops over the rows and looks each one up in the
// table's index, where its planner, guessing the rows' number, may instead
// scan the table and the rows for each of its rows. To PostgreSQL it is a
// plain join.
func (t *tx) bulk(ctx context.Context, query string, args []any, n int, cols []Column, each func(*sql.Rows) error) (int64, error) {
	chunks, err := t.chunks(query, args, n, cols)
	if err != nil {
		return 0, err
	}
	var affected int64
	for c, err := range chunks {
		if err != nil {
			return affected, err
		}
		if each == nil {
			res, err := t.exec(ctx, c.query, c.args...)
			if err != nil {
				return affected, err
			}
			k, err := res.RowsAffected()
			if err != nil {
				return affected, err
			}
			affected += k
			continue
		}
		rows, err := t.query(ctx, c.query, c.args...)
		if err != nil {
			return affected, err
		}
		if err := forEach(rows, each); err != nil {
			return affected, err
		}
	}
	return affected, nil
}
