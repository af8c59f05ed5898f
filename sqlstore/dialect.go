package sqlstore

import (
	"strconv"
	"strings"
)

// Dialect is an engine's syntax. The SQL in this package is written once,
// with ? placeholders, in the subset SQLite (≥ 3.39) and PostgreSQL share;
// a Dialect supplies the rest. What else differs between the engines is
// their Engine's.
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
	// AnyOf returns a condition that column equals one of values, and the
	// one argument of its placeholder: a list of any length passed as one
	// parameter.
	AnyOf(column string, values []string) (cond string, arg any)
	// LookupEach returns a query of columns of table's rows whose column
	// equals one of values and that meet cond, and the one argument of its
	// placeholder: each value looked up on its own in the index on column
	// (cond being a partial index's predicate), whatever the table's size
	// and statistics, for a few values in a large table (the pending legs
	// of InsertMembersLockingLegs).
	LookupEach(table, columns, column, cond string, values []string) (query string, arg any)
	// EachByKey returns a query of columns of table's rows (named alias,
	// which columns may use) whose key equals the key column of keys, a
	// query: each row looked up on its own by key in keys' order, lock (a
	// LockClause, or "") taking each as it is found, and the rows ordered
	// by the column order of both, unless it is "". Its plan is the same
	// lookups whatever the tables' sizes and statistics, when PostgreSQL
	// planned it and when it keeps that plan: one made on an empty table
	// is not a scan of every row later (docs/benchmarks.md, "Registration").
	EachByKey(keys, key, table, alias, columns, lock, order string) string
}

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
