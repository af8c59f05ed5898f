package postgres

import (
	"fmt"
	"strings"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/disburse/disburse/sqlstore"
)

// maxBulkRows bounds the rows of one bulk statement. unnest takes arrays
// of any length; the bound only keeps one statement's parameters (about
// 200 bytes a row for a payment) to tens of megabytes.
const maxBulkRows = 200_000

// Rebind numbers the placeholders: $1, $2, ...
func (Engine) Rebind(query string) string { return sqlstore.RebindDollar(query) }

// LockClause takes row locks. They are NO KEY UPDATE locks: every locked
// row is updated but never has its key changed or is deleted, and a FOR
// UPDATE lock would also block the foreign-key checks of rows that point
// at it (a new batch of a payout account that a submit holds would wait
// for the whole submit). skipLocked is for claiming work (due legs,
// notifications): a row another replica has claimed is passed over, not
// waited for.
func (Engine) LockClause(skipLocked bool) string {
	if skipLocked {
		return " FOR NO KEY UPDATE SKIP LOCKED"
	}
	return " FOR NO KEY UPDATE"
}

// Rows passes each column as one typed array parameter and zips them back
// into rows with unnest ... WITH ORDINALITY: one statement binds one
// parameter per column whatever the number of rows, and its text does not
// depend on the number, so pgx prepares it once per connection.
func (Engine) Rows(cols []sqlstore.Column, n int) (string, []any, error) {
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
func (e Engine) MaxBulkRows() int {
	if e.bulkRows > 0 {
		return e.bulkRows
	}
	return maxBulkRows
}

// AnyOf passes values as one text[] parameter, matched with = ANY. A
// lookup of many keys written so keeps its index scan in a generic
// (prepared) plan, where a join to Rows may not: without statistics on the
// table, PostgreSQL planned that join as a scan of every wallet, for each
// registration.
func (Engine) AnyOf(column string, values []string) (string, any) {
	return column + " = ANY(CAST(? AS TEXT[]))", values
}

// LookupEach joins the values, as one text[] parameter, to a lookup of
// each: the subquery is LATERAL, and OFFSET 0 keeps the planner from
// folding it into a join, so the only plan is one index lookup a value.
// Written as = ANY, the lookup was planned from the table's statistics;
// without them (a table just filled, or autovacuum off) PostgreSQL
// estimated a quarter of the table for 60 values and scanned it whole:
// 360 ms a registration group at two million payments, against 0.9 ms
// this way (docs/benchmarks.md, "Registration").
func (Engine) LookupEach(table, columns, column, cond string, values []string) (string, any) {
	return `SELECT l.* FROM unnest(CAST(? AS TEXT[])) AS v(value) CROSS JOIN LATERAL
		(SELECT ` + columns + ` FROM ` + table + ` WHERE ` + column + ` = v.value AND ` + cond + ` OFFSET 0) AS l`, values
}

// EachByKey looks each key up in a LATERAL subquery, the lock inside it
// (or OFFSET 0, which keeps it from being folded into a join): the only
// plan is a nested loop over keys, in their order, of one lookup by key
// each. Written as key IN (keys), a plan PostgreSQL made and kept while
// the table was empty read the whole table for every run.
func (Engine) EachByKey(keys, key, table, alias, columns, lock, order string) string {
	if lock == "" {
		lock = " OFFSET 0"
	}
	if order != "" {
		order = ` ORDER BY k.` + order
	}
	return `SELECT ` + alias + `.* FROM (` + keys + `) AS k CROSS JOIN LATERAL
		(SELECT ` + columns + ` FROM ` + table + ` AS ` + alias + ` WHERE ` + alias + `.` + key + ` = k.` + key + lock + `) AS ` + alias + order
}
