package sqlite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/disburse/disburse/sqlstore"
)

// maxBulkRows keeps one JSON parameter to a few megabytes.
const maxBulkRows = 50_000

// Rebind leaves the query alone: SQLite takes ? placeholders.
func (Engine) Rebind(query string) string { return query }

// LockClause is empty: SQLite has no row locks. Every write transaction
// begins IMMEDIATE on the one writer connection, so it holds the database's
// write lock from its first statement; what a lock would protect cannot
// change under it.
func (Engine) LockClause(skipLocked bool) string { return "" }

// Rows passes the rows as one JSON text parameter, an array of row arrays,
// and reads them back with jsonb_each: one statement binds one parameter
// whatever the number of rows. jsonb_each rather than json_each because it
// yields each row as JSONB, which ->> indexes without parsing text again.
func (Engine) Rows(cols []sqlstore.Column, n int) (string, []any, error) {
	var b strings.Builder
	b.WriteString("(SELECT j.key AS ord")
	for i, c := range cols {
		fmt.Fprintf(&b, ", j.value ->> %d AS %s", i, c.Name)
	}
	b.WriteString(" FROM jsonb_each(?) AS j)")

	buf := make([]byte, 0, n*len(cols)*24) // ids are 38 bytes quoted, the rest less
	buf = append(buf, '[')
	for i := range n {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, '[')
		for k, c := range cols {
			if k > 0 {
				buf = append(buf, ',')
			}
			switch v := c.Value(i).(type) {
			case nil:
				buf = append(buf, "null"...)
			case string:
				buf = appendJSONString(buf, v)
			case int64:
				buf = strconv.AppendInt(buf, v, 10)
			case bool:
				buf = strconv.AppendBool(buf, v)
			default:
				return "", nil, fmt.Errorf("sqlite: bulk column %s: unexpected %T", c.Name, v)
			}
		}
		buf = append(buf, ']')
	}
	buf = append(buf, ']')
	return b.String(), []any{string(buf)}, nil
}

// AnyOf matches the values of one JSON array parameter, read back with
// json_each: SQLite plans it as a lookup of each value in column's index.
func (Engine) AnyOf(column string, values []string) (string, any) {
	buf := []byte{'['}
	for i, v := range values {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendJSONString(buf, v)
	}
	return column + " IN (SELECT value FROM json_each(?))", string(append(buf, ']'))
}

// LookupEach is column's AnyOf: SQLite already looks each value up in
// column's index.
func (e Engine) LookupEach(table, columns, column, cond string, values []string) (string, any) {
	match, arg := e.AnyOf(column, values)
	return `SELECT ` + columns + ` FROM ` + table + ` WHERE ` + match + ` AND ` + cond, arg
}

// EachByKey is key IN (keys): SQLite keeps no plan made on an earlier
// run, and its plan of a lookup by an indexed column is the index
// whatever the table's size. It takes no row locks (one writer), so lock
// is "".
func (Engine) EachByKey(keys, key, table, alias, columns, lock, order string) string {
	if order != "" {
		order = ` ORDER BY ` + alias + `.` + order
	}
	return `SELECT ` + columns + ` FROM ` + table + ` AS ` + alias + ` WHERE ` + alias + `.` + key + ` IN (SELECT k.` + key + ` FROM (` + keys + `) AS k)` + lock + order
}

// appendJSONString appends s as a JSON string. Bytes that are not valid
// UTF-8 are passed through: SQLite's JSON functions keep them as they are,
// as they would in a text column.
func appendJSONString(buf []byte, s string) []byte {
	buf = append(buf, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			buf = append(buf, '\\', c)
		case c < 0x20:
			buf = append(buf, `\u00`...)
			buf = append(buf, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			buf = append(buf, c)
		}
	}
	return append(buf, '"')
}

// MaxBulkRows bounds the rows of one JSON parameter.
func (e Engine) MaxBulkRows() int {
	if e.bulkRows > 0 {
		return e.bulkRows
	}
	return maxBulkRows
}
