// Package sqlstore implements disburse.Store once, over database/sql, for
// every SQL engine. What differs between engines sits behind an Engine:
// its syntax (a Dialect: placeholders, row locks, bulk row sources), its
// error codes and transactions, and the few operations it does its own
// way. sqlite/ and postgres/ open the connections, run their migrations
// and supply their Engine.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/disburse/disburse"
)

// maxAttempts bounds how often Write runs fn when the engine reports a
// serialization failure or deadlock.
const maxAttempts = 5

// Store is a disburse.Store over one or two connection pools.
type Store struct {
	write, read *sql.DB
	e           Engine
	prepared    *statements // the lookups, prepared; nil: not kept (lookup.go)
	tokens      *tokenCache // TokenByHash's reads, kept (token_cache.go)
	lane        *writerLane // the one writer's turns (writer_lane.go); nil: none
	// announceTokens, run in a transaction that changes what a kept token
	// says, tells the other processes' caches (token_watch.go); "": none.
	announceTokens string
	stopWatch      func() // ends WatchTokens' listener; nil: none
}

var _ disburse.Store = (*Store)(nil)

// Option configures a Store; New applies them in order.
type Option func(*Store)

// New returns a Store that runs write transactions on write and read-only
// ones, and the lookups, on read; both may be the same pool. The Store owns
// the pools: Close closes them.
func New(write, read *sql.DB, e Engine, opts ...Option) *Store {
	s := &Store{write: write, read: read, e: e, tokens: newTokenCache(TokenCacheTTL, time.Now)}
	for _, o := range opts {
		o(s)
	}
	return s
}

// Write runs fn in a write transaction and commits if fn returns nil. It
// runs fn again, up to maxAttempts times, when the engine calls the failure
// retryable, or when the connection was lost before COMMIT was sent (a
// pooled connection the server had terminated, a refused BEGIN): nothing
// of it was kept. A failure of COMMIT itself is never retried: whether it
// took is unknown, and running fn again could do its work twice.
func (s *Store) Write(ctx context.Context, fn func(disburse.Tx) error) error {
	return s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

// writeTx is Write for any port a *tx implements.
func (s *Store) writeTx(ctx context.Context, fn func(*tx) error) error {
	tokensChanged := false
	defer func() {
		if tokensChanged { // after the commit, whatever its outcome (token_cache.go)
			s.tokens.empty()
		}
	}()
	return s.retrying(ctx, func() error {
		return s.transact(ctx, s.write, false, func(t *tx) error {
			err := fn(t)
			tokensChanged = tokensChanged || t.tokensChanged
			if err != nil {
				return err
			}
			return s.announceChange(ctx, t)
		})
	})
}

// Read runs fn in a read-only transaction: one consistent snapshot. A
// connection lost before fn ran is retried as Write does; once fn has run
// it is not, since fn may have handed rows on (a streamed answer), and
// running it again would hand them on twice.
func (s *Store) Read(ctx context.Context, fn func(disburse.Tx) error) error {
	return s.readTx(ctx, func(t *tx) error { return fn(t) })
}

// readTx is Read for any port a *tx implements.
func (s *Store) readTx(ctx context.Context, fn func(*tx) error) error {
	return s.retrying(ctx, func() error {
		ran := false
		err := s.transact(ctx, s.read, true, func(t *tx) error {
			ran = true
			return fn(t)
		})
		if ran && err != nil {
			return &ranError{err}
		}
		return err
	})
}

// retrying runs run until it succeeds, fails for good, or has run
// maxAttempts times. A database that stayed unreachable is ErrUnavailable.
func (s *Store) retrying(ctx context.Context, run func() error) error {
	for attempt := 1; ; attempt++ {
		err := run()
		var ran *ranError
		if errors.As(err, &ran) {
			return s.unavailable(ran.err)
		}
		var commit *commitError
		lost := err != nil && !errors.As(err, &commit) && s.e.Unreachable(err)
		if err == nil || attempt == maxAttempts || ctx.Err() != nil || !(lost || s.e.Retryable(err)) {
			return s.unavailable(err)
		}
		if err := sleep(ctx, backoff(attempt)); err != nil {
			return err
		}
	}
}

// unavailable marks err as disburse.ErrUnavailable when it says the
// database cannot be reached and nothing was committed, and as
// disburse.ErrBusy when the database gave up waiting (a statement or lock
// timeout, SQLite's busy timeout) or a serialization failure or deadlock
// outlasted its retries: the API answers 503, not 500 (docs/api.md
// section 2). A lost COMMIT stays what it is: an unknown outcome.
func (s *Store) unavailable(err error) error {
	var commit *commitError
	switch {
	case err == nil || errors.As(err, &commit):
		return err
	case s.e.Unreachable(err):
		return fmt.Errorf("%w: %w", disburse.ErrUnavailable, err)
	case s.e.Busy(err) || s.e.Retryable(err):
		return fmt.Errorf("%w: %w", disburse.ErrBusy, err)
	}
	return err
}

// ranError is a failure of a read whose fn had run: not to be retried.
type ranError struct{ err error }

func (e *ranError) Error() string { return e.err.Error() }
func (e *ranError) Unwrap() error { return e.err }

// commitError is a failure of COMMIT: the transaction may or may not have
// been kept (docs/operations.md says how a client finds out which).
type commitError struct{ err error }

func (e *commitError) Error() string { return "sqlstore: commit: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// transact runs fn in one transaction on db. The connection is taken with
// ctx, so a caller that gives up stops waiting for it; the transaction
// itself is begun without ctx's cancellation so that database/sql does not
// roll it back and discard the connection behind our back: statements still
// run with ctx, and the deferred Rollback always runs on a live connection.
// fn takes the tx itself, so that Write and a feature's store (keyStore)
// each hand it on as their own port, with no type assertion.
func (s *Store) transact(ctx context.Context, db *sql.DB, readOnly bool, fn func(*tx) error) (err error) {
	if s.lane != nil && !readOnly {
		release, err := s.lane.acquire(ctx)
		if err != nil {
			return fmt.Errorf("sqlstore: connect: %w", err)
		}
		defer release() // after the connection's Close below: deferred first
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlstore: connect: %w", err)
	}
	defer conn.Close()
	sqlTx, err := conn.BeginTx(context.WithoutCancel(ctx), s.e.TxOptions(readOnly))
	if err != nil {
		return fmt.Errorf("sqlstore: begin: %w", err)
	}
	defer func() {
		if p := recover(); p != nil {
			// A panic must not leave the transaction open: the connection
			// would never return, and on SQLite every later write would
			// wait for its lock. Roll back, then let the panic go on.
			_ = sqlTx.Rollback()
			panic(p)
		}
		if err != nil {
			// The error that matters is err; a rollback after a failed
			// statement may find the transaction already gone.
			_ = sqlTx.Rollback()
		}
	}()
	if err := fn(&tx{tx: sqlTx, conn: conn, e: s.e}); err != nil {
		return err
	}
	if readOnly {
		// Nothing to keep; rolling back ends the snapshot just as well.
		return sqlTx.Rollback()
	}
	if err := sqlTx.Commit(); err != nil {
		return &commitError{err}
	}
	return nil
}

// backoff is the wait before attempt+1: exponential from 5ms, with full
// jitter so that transactions that collided do not collide again.
func backoff(attempt int) time.Duration {
	ceiling := 5 * time.Millisecond << attempt
	return time.Duration(rand.Int64N(int64(ceiling))) + time.Millisecond
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Ping reports whether the database answers, on the read pool: where
// writes have a pool of their own (SQLite's one writer), a long submit
// holds it, and the database answers all the same.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.read.PingContext(ctx); err != nil {
		return s.unavailable(fmt.Errorf("sqlstore: ping: %w", err))
	}
	return nil
}

// Close closes the prepared statements and the pools.
func (s *Store) Close() error {
	if s.stopWatch != nil {
		s.stopWatch()
	}
	if s.prepared != nil {
		s.prepared.close()
	}
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// ExecRaw runs one statement outside the use cases, in its own write
// transaction. It is for tests that must write rows the Tx methods never
// would (a broken ledger, to see the audit find it) and for operator tools.
func (s *Store) ExecRaw(ctx context.Context, query string, args ...any) error {
	return s.transact(ctx, s.write, false, func(t *tx) error {
		_, err := t.exec(ctx, query, args...)
		return err
	})
}
