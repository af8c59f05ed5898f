package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/disburse/disburse/sqlstore"
)

// Every replica's token cache hears every auth write (a revocation, the
// purge, an organisation's change) through NOTIFY and LISTEN, so that a
// revoked key's tokens stop at once everywhere (docs/api.md section 3,
// docs/operations.md "Authentication"; sqlstore/token_watch.go). The
// write's pg_notify runs in its transaction, so PostgreSQL delivers it
// when, and only if, it commits.

// tokensChannel is the channel of the announcements.
const tokensChannel = "disburse_tokens"

// announceTokens is the announcement, run in the writing transaction.
const announceTokens = `SELECT pg_notify('` + tokensChannel + `', '')`

// listenCheck is how long the listener waits for an announcement before it
// checks that its connection still answers: a connection dropped without
// a word (a half-open TCP connection) is found within listenCheck plus the
// ping's listenPingTimeout, and the cache is off from then until it is back.
const (
	listenCheck       = 5 * time.Second
	listenPingTimeout = 2 * time.Second
	listenRetryMax    = 5 * time.Second
)

// listenConfig is the listening connection's configuration, from the
// service's database URL: its own session, named in pg_stat_activity.
func listenConfig(url string) (*pgx.ConnConfig, error) {
	pool, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("postgres: parse database URL: %w", err)
	}
	cfg := pool.ConnConfig
	cfg.RuntimeParams["application_name"] = "disburse tokens"
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = defaultConnectTimeout
	}
	// A timed-out wait for a notification leaves the connection usable:
	// the wait's end only moves its deadline, with no cancel request sent
	// to the server.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	return cfg, nil
}

// listen opens a connection that listens on tokensChannel.
func listen(ctx context.Context, cfg *pgx.ConnConfig) (*pgx.Conn, error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: connect the token listener: %w", err)
	}
	if _, err := conn.Exec(ctx, "LISTEN "+tokensChannel); err != nil {
		conn.Close(context.Background())
		return nil, fmt.Errorf("postgres: listen for auth writes: %w", err)
	}
	return conn, nil
}

// watchTokens is the Store's listener (sqlstore.WatchTokens): it starts
// on conn, already listening, and when that is lost turns the cache off
// and connects again, waiting longer each time up to listenRetryMax.
func watchTokens(cfg *pgx.ConnConfig, conn *pgx.Conn) func(context.Context, sqlstore.TokenWatch) {
	return func(ctx context.Context, w sqlstore.TokenWatch) {
		wait := 50 * time.Millisecond
		for {
			if conn != nil {
				w.Listening()
				hear(ctx, conn, w)
				w.Lost()
				closeCtx, cancel := context.WithTimeout(context.Background(), time.Second)
				conn.Close(closeCtx)
				cancel()
				conn, wait = nil, 50*time.Millisecond
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(wait):
			}
			wait = min(2*wait, listenRetryMax)
			conn, _ = listen(ctx, cfg) // the cache stays off until it listens
		}
	}
}

// hear empties the cache for each announcement on conn, until conn fails
// or ctx ends.
func hear(ctx context.Context, conn *pgx.Conn, w sqlstore.TokenWatch) {
	for {
		waitCtx, cancel := context.WithTimeout(ctx, listenCheck)
		_, err := conn.WaitForNotification(waitCtx)
		cancel()
		switch {
		case err == nil:
			w.Changed()
		case ctx.Err() != nil:
			return
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			pingCtx, cancel := context.WithTimeout(ctx, listenPingTimeout)
			err := conn.Ping(pingCtx)
			cancel()
			if err != nil {
				return
			}
		default:
			return
		}
	}
}
