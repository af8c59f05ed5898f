package sqlstore

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
)

// Dialect is what differs between the engines. The SQL in this package is
// written once, with ? placeholders, in the subset SQLite (≥ 3.39) and
// PostgreSQL share; a Dialect supplies the rest.
type Dialect interface {
	// Rebind rewrites the ? placeholders of query into the engine's form.
	Rebind(query string) string
	// LockClause is appended to a SELECT that takes row locks: " FOR NO KEY UPDATE"
	// (with " SKIP LOCKED" when skipLocked) where the engine has row locks,
	// "" where writers are serialised another way (SQLite: BEGIN IMMEDIATE).
	LockClause(skipLocked bool) string
	// Rows returns a parenthesised table expression that yields the first n
	// rows of cols, one column per Column named by its Name, plus an "ord"
	// column that increases with the row index; and the arguments for its
	// placeholders. It is how every bulk statement gets its rows: one
	// statement per chunk of rows, never one per row.
	Rows(cols []Column, n int) (expr string, args []any, err error)
	// MaxBulkRows bounds the rows passed to one statement; larger inputs
	// are split into chunks of this size.
	MaxBulkRows() int
	// Violation classifies err as a constraint violation, by error code
	// (SQLite extended result code, PostgreSQL SQLSTATE), never by message.
	Violation(err error) Violation
	// Retryable reports whether a transaction that failed with err may be
	// run again: serialization failures and deadlocks.
	Retryable(err error) bool
	// Unreachable reports whether err says the database cannot be reached
	// or the connection was lost (refused, timed out, terminated by the
	// server): nothing of a transaction that had not sent COMMIT is kept.
	Unreachable(err error) bool
	// TxOptions returns the options of a write or read-only transaction.
	TxOptions(readOnly bool) *sql.TxOptions
}

// Copier is a Dialect with a faster way than INSERT ... SELECT from Rows
// to insert many rows: PostgreSQL's COPY. The Dialect implements it or not.
type Copier interface {
	// CopyMinRows is the fewest rows worth copying: below it the copy's
	// setup costs more than it saves, and the rows go through Rows.
	CopyMinRows() int
	// CopyRows inserts the n rows of cols into table, in row order, over
	// conn, in the transaction open on it.
	CopyRows(ctx context.Context, conn *sql.Conn, table string, cols []Column, n int) error
}

// Cursors is a Dialect whose engine keeps a query's result open in a
// transaction, to be fetched a part at a time (DECLARE ... CURSOR and
// FETCH: PostgreSQL). The Dialect implements it or not.
type Cursors interface {
	// CursorsKeepTheirSnapshot is a marker: a cursor sees the rows as they
	// were when it was declared, whatever the transaction changes after.
	CursorsKeepTheirSnapshot()
}

// UniqueExternalIDs is a Dialect whose schema refuses a payment's external
// id that another non-deleted payment of the organisation holds: a unique
// index (PostgreSQL's migration 00007). Without it, InsertPayments looks
// the external ids up before it inserts (SQLite, whose one writer makes
// that safe, and where such an index would cost every submit an index
// update per payment). The Dialect implements it or not.
type UniqueExternalIDs interface {
	// ExternalIDsUnique is a marker.
	ExternalIDsUnique()
}

// ArrayMatcher is a Dialect that passes a list as one array parameter,
// matched with "= ANY(?)" (PostgreSQL). A lookup of many keys written so
// keeps its index scan in a generic (prepared) plan, where a join to Rows
// may not: without statistics on the table PostgreSQL planned that join as
// a scan of every wallet, for each registration.
type ArrayMatcher interface {
	// TextArray returns ss as one parameter of type text[].
	TextArray(ss []string) any
}

// Violation is the kind of constraint an error violated.
type Violation int

// The violations the store tells apart.
const (
	NoViolation     Violation = iota // not a constraint violation (or one the store does not name)
	UniqueViolation                  // a primary key or unique index
	CheckViolation                   // a CHECK constraint
)

// RebindDollar rewrites ? placeholders as $1, $2, ... (PostgreSQL), leaving
// string literals alone. Dialects that number their placeholders use it.
func RebindDollar(query string) string {
	if !strings.Contains(query, "?") {
		return query
	}
	var b strings.Builder
	b.Grow(len(query) + 16)
	n, inString := 0, false
	for i := 0; i < len(query); i++ {
		c := query[i]
		switch {
		case c == '\'':
			inString = !inString // '' inside a literal toggles twice: still inside
		case c == '?' && !inString:
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
