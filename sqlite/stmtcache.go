package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"
)

// The driver prepares every statement it is given, each time: on a
// registration, parsing SQL was much of the CPU the store used
// (docs/benchmarks.md, "Registration"). Each connection here
// keeps its prepared statements by their text and runs a statement again
// from there. The texts are few and fixed: bulk rows travel as one JSON
// parameter (Engine.Rows), so a statement's text does not depend on how
// many rows it carries.

// maxCachedStatements bounds one connection's cache, and maxCachedText
// the text of a statement it keeps: past either, a statement is prepared,
// run and closed as the driver does on its own. A long text is a
// multi-row INSERT, which Engine.InsertRows prepares for the one call
// that runs it many times: kept here, such statements, of up to 32,766
// parameters each, would hold their memory for the connection's life.
const (
	maxCachedStatements = 512
	maxCachedText       = 4096
)

// connector opens the driver's connections, each with a statement cache.
type connector struct {
	dsn    string
	driver *sqlite.Driver
}

func (c connector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.driver.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(innerConn)
	if !ok {
		conn.Close()
		return nil, errors.New("sqlite: the driver's connection lacks a context method")
	}
	return &cachingConn{innerConn: inner, stmts: make(map[string]*cachedStmt)}, nil
}

func (c connector) Driver() driver.Driver { return c.driver }

// innerConn is what database/sql uses of the driver's connection.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.SessionResetter
	driver.Validator
	driver.Pinger
}

// cachingConn is one connection and its statements. database/sql uses a
// connection from one goroutine at a time, so the cache needs no lock.
type cachingConn struct {
	innerConn
	stmts map[string]*cachedStmt
}

// cachedStmt is a prepared statement; busy while rows read from it are
// open, when the same text is run again on a statement of its own.
type cachedStmt struct {
	stmt interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	}
	busy bool
}

// cached returns query's statement, preparing it the first time; nil when
// it is busy or the cache is full, and the caller runs query uncached.
func (c *cachingConn) cached(ctx context.Context, query string) (*cachedStmt, error) {
	if s, ok := c.stmts[query]; ok {
		if s.busy {
			return nil, nil
		}
		return s, nil
	}
	if len(c.stmts) >= maxCachedStatements || len(query) > maxCachedText {
		return nil, nil
	}
	prepared, err := c.innerConn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	stmt, ok := prepared.(interface {
		driver.Stmt
		driver.StmtExecContext
		driver.StmtQueryContext
	})
	if !ok {
		prepared.Close()
		return nil, nil
	}
	s := &cachedStmt{stmt: stmt}
	c.stmts[query] = s
	return s, nil
}

func (c *cachingConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	s, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.innerConn.ExecContext(ctx, query, args)
	}
	return s.stmt.ExecContext(ctx, args)
}

func (c *cachingConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	s, err := c.cached(ctx, query)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return c.innerConn.QueryContext(ctx, query, args)
	}
	rows, err := s.stmt.QueryContext(ctx, args)
	if err != nil {
		return nil, err
	}
	s.busy = true
	return &releasingRows{Rows: rows, stmt: s}, nil
}

// Close closes the cached statements, then the connection.
func (c *cachingConn) Close() error {
	var errs []error
	for query, s := range c.stmts {
		errs = append(errs, s.stmt.Close())
		delete(c.stmts, query)
	}
	return errors.Join(append(errs, c.innerConn.Close())...)
}

// releasingRows frees its statement for the next run once closed (the
// driver resets a prepared statement when its rows close).
type releasingRows struct {
	driver.Rows
	stmt *cachedStmt
}

func (r *releasingRows) Close() error {
	err := r.Rows.Close()
	r.stmt.busy = false
	return err
}
