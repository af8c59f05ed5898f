package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
)

// Statement is one statement of a pipeline (Engine.Pipeline): its text,
// already in the engine's placeholders, and its arguments. A statement
// with Row is a query: Row reads each of its rows. Done, when set, gets
// the rows it affected and its failure (nil when it ran), and returns
// what the pipeline reports: nil goes on to the next statement.
type Statement struct {
	Query string
	Args  []any
	Row   func(Rows) error
	Done  func(affected int64, err error) error
}

// RunEach runs stmts one after another in the transaction: the plain
// way, for an engine without round trips to save (SQLite, in process) or
// a pipeline of one statement.
func (c Conn) RunEach(ctx context.Context, stmts []Statement) error {
	for _, s := range stmts {
		if err := c.t.runNow(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// runNow runs s on the transaction itself, never through the queue.
func (t *tx) runNow(ctx context.Context, s Statement) error {
	var affected int64
	var err error
	if s.Row != nil {
		var rows *sql.Rows
		if rows, err = t.tx.QueryContext(ctx, s.Query, s.Args...); err == nil {
			err = forEach(rows, func(r *sql.Rows) error { return s.Row(r) })
		}
	} else {
		var res sql.Result
		if res, err = t.tx.ExecContext(ctx, s.Query, s.Args...); err == nil {
			affected, err = res.RowsAffected()
		}
	}
	if s.Done != nil {
		return s.Done(affected, err)
	}
	return err
}

// Together runs fn with the statements it writes blind (inserts and
// updates whose answer is only their count) held back and sent with the
// next statement that returns rows, or at fn's end, in one round trip
// where the engine allows it (a pgx batch on PostgreSQL): a registration
// group's writes went from about ten round trips to a few
// (docs/benchmarks.md, "Registration"). Statements still run in the order
// fn issues them, so the lock order is the same (docs/ledger.md, "Lock
// order"). A held statement's failure is returned by the call that sent
// it, or by Together: fn's transaction fails either way.
func (t *tx) Together(ctx context.Context, fn func() error) error {
	if t.together {
		return fn()
	}
	t.together = true
	err := fn()
	t.together = false
	if ferr := t.flush(ctx); err == nil {
		err = ferr
	}
	return err
}

// flush sends the held statements, if any, and then runs what waited for
// their answers (holdRead).
func (t *tx) flush(ctx context.Context) error {
	if t.failed != nil {
		return t.failed
	}
	if len(t.held) == 0 {
		return nil
	}
	stmts, then := t.held, t.then
	t.held, t.then = nil, nil
	err := t.e.Pipeline(ctx, Conn{t: t}, stmts)
	for _, f := range then {
		if err != nil {
			break
		}
		err = f()
	}
	if err != nil {
		t.failed = err
	}
	return err
}

// holdRead holds s, a query, inside Together without sending what is held
// (later sends a query at once), and runs then once its rows are read:
// then may issue statements of its own, which the engine's pipeline,
// still reading, could not.
func (t *tx) holdRead(s Statement, then func() error) {
	t.hold(s)
	t.then = append(t.then, then)
}

// hold holds s, a query whose rows s.Row reads when they come, inside
// Together without sending what is held.
func (t *tx) hold(s Statement) { t.held = append(t.held, s) }

// later runs s now, or holds it inside Together.
func (t *tx) later(ctx context.Context, s Statement) error {
	if !t.together {
		if err := t.flush(ctx); err != nil {
			return err
		}
		return t.runNow(ctx, s)
	}
	t.held = append(t.held, s)
	if s.Row != nil {
		// Its rows are wanted now: send it with what waits before it.
		return t.flush(ctx)
	}
	return nil
}

// bulkLater is bulk through later: each chunk of the query held inside
// Together. done gets the rows affected over every chunk, or the first
// failure, once; each (nil: an exec) reads every result row.
func (t *tx) bulkLater(ctx context.Context, query string, args []any, n int, cols []Column,
	each func(Rows) error, done func(affected int64, err error) error) error {
	chunks, err := t.chunks(query, args, n, cols)
	if err != nil {
		return err
	}
	if n == 0 {
		return done(0, nil)
	}
	var total int64
	for c, err := range chunks {
		if err != nil {
			return done(total, err)
		}
		s := Statement{Query: t.e.Rebind(c.query), Args: c.args, Row: each,
			Done: func(affected int64, err error) error {
				total += affected
				if err != nil || c.last {
					return done(total, err)
				}
				return nil
			}}
		if err := t.later(ctx, s); err != nil {
			return err
		}
	}
	return nil
}

// named is a Statement's Done that names the statement in its failure,
// and lets it go on otherwise.
func named(what string) func(affected int64, err error) error {
	return func(_ int64, err error) error {
		if err != nil {
			return fmt.Errorf("%s: %w", what, err)
		}
		return nil
	}
}
