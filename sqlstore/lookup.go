package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// The lookups are the reads of one row by key that nearly every request
// makes: its token, or (GET /batches/{id}) its token and its batch. Each
// runs as one statement on the read pool, outside any transaction. One
// statement reads one snapshot by itself, in both engines, so Read's BEGIN
// and ROLLBACK would only add work: on PostgreSQL two round trips of the
// three a read took.

// TokenByHash is Tx.TokenByHash outside any transaction, kept for a
// moment when found (token_cache.go).
func (a authStore) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	if a.s.tokens.ttl <= 0 {
		return a.tokenByHash(ctx, hash)
	}
	return a.s.tokens.token(hash, func() (auth.Token, error) { return a.tokenByHash(ctx, hash) })
}

func (a authStore) tokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	var tk auth.Token
	err := a.s.lookup(ctx, tokenByHashQuery, []any{hash}, tokenFields(&tk))
	return tk, found("token", err)
}

// tokenAndBatchQuery joins the batch to the token on the organisation, so
// that another organisation's batch is no row at all.
var tokenAndBatchQuery = `SELECT ` + tokenColumns + `, ` + qualify("b", batchColumns) + `
	FROM tokens t JOIN api_keys k ON k.id = t.api_key_id
	JOIN batches b ON b.id = ? AND b.organisation_id = t.organisation_id
	WHERE t.hash = ?`

// TokenAndBatch reads a token and a batch of its organisation in one
// statement: no row when either is missing.
func (a authStore) TokenAndBatch(ctx context.Context, tokenHash, batchID string) (auth.Token, disburse.Batch, error) {
	var (
		tk auth.Token
		b  disburse.Batch
	)
	err := a.s.lookup(ctx, tokenAndBatchQuery, []any{batchID, tokenHash}, append(tokenFields(&tk), batchFields(&b)...))
	if err != nil {
		return auth.Token{}, disburse.Batch{}, found("token and batch", err)
	}
	return tk, b, nil
}

// lookup runs query, which reads at most one row, on the read pool and
// scans the row into dest: as a statement prepared once per connection
// when the Store keeps them. No row is sql.ErrNoRows. A lost connection
// is tried again, as Read does.
func (s *Store) lookup(ctx context.Context, query string, args, dest []any) error {
	return s.retrying(ctx, func() error { return s.lookupOnce(ctx, query, args, dest) })
}

func (s *Store) lookupOnce(ctx context.Context, query string, args, dest []any) error {
	if s.prepared == nil {
		return s.read.QueryRowContext(ctx, s.e.Rebind(query), args...).Scan(dest...)
	}
	stmt, err := s.prepared.stmt(ctx, query)
	if err != nil {
		return err
	}
	return stmt.QueryRowContext(ctx, args...).Scan(dest...)
}

// lookupRows runs query, one statement, on the read pool, as lookup does,
// and returns its rows.
func (s *Store) lookupRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if s.prepared == nil {
		return s.read.QueryContext(ctx, s.e.Rebind(query), args...)
	}
	stmt, err := s.prepared.stmt(ctx, query)
	if err != nil {
		return nil, err
	}
	return stmt.QueryContext(ctx, args...)
}

// qualify prefixes each of a comma-separated list of columns with alias.
func qualify(alias, columns string) string {
	cols := strings.Split(columns, ",")
	for i, c := range cols {
		cols[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cols, ", ")
}

// PrepareLookups is an Option for a driver that parses every statement it
// is handed anew: modernc.org/sqlite keeps no statement cache, and its
// parser was a large part of the handler's CPU time in GET /batches/{id}
// (bench --http-load, docs/benchmarks.md). pgx keeps a cache per connection, so PostgreSQL
// needs no such thing.
func PrepareLookups() Option {
	return func(s *Store) { s.prepared = &statements{db: s.read, d: s.e} }
}

// statements prepares each lookup once on a pool. database/sql then
// prepares it again on each connection of the pool the first time it runs
// there, and keeps it for as long as the connection lives.
type statements struct {
	db *sql.DB
	d  Dialect
	m  sync.Map // query text → *sql.Stmt
}

func (c *statements) stmt(ctx context.Context, query string) (*sql.Stmt, error) {
	if v, ok := c.m.Load(query); ok {
		return v.(*sql.Stmt), nil
	}
	stmt, err := c.db.PrepareContext(ctx, c.d.Rebind(query))
	if err != nil {
		return nil, fmt.Errorf("sqlstore: prepare: %w", err)
	}
	if v, raced := c.m.LoadOrStore(query, stmt); raced {
		stmt.Close() // another request prepared it first
		return v.(*sql.Stmt), nil
	}
	return stmt, nil
}

// close closes the statements, before the pool they were prepared on.
func (c *statements) close() {
	c.m.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close() // closing only releases; there is nothing to report
		return true
	})
}
