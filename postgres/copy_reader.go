package postgres

import (
	"fmt"

	"github.com/google/uuid"

	"github.com/disburse/disburse/internal/pgcopy"
	"github.com/disburse/disburse/sqlstore"
)

// newCopyReader is the n rows of cols in COPY's binary format, row i
// encoded once ready has returned more than i (ready's error ends the
// stream). Each column's Type names its PostgreSQL type: text, uuid
// (TypeID), bigint (TypeInt, TypeTime) or boolean; a column of another
// type makes the server refuse the copy.
func newCopyReader(table string, cols []sqlstore.Column, n int, ready func() (int, error)) *pgcopy.Reader {
	i, k := 0, 0
	return pgcopy.NewReader(func(buf []byte) ([]byte, bool, error) {
		if i == n {
			return buf, false, nil
		}
		for i >= k {
			var err error
			if k, err = ready(); err != nil {
				return nil, false, err
			}
		}
		buf, err := appendCopyRow(pgcopy.Row(buf, len(cols)), table, cols, i)
		i++
		return buf, err == nil, err
	})
}

// appendCopyRow appends row i's fields.
func appendCopyRow(buf []byte, table string, cols []sqlstore.Column, i int) ([]byte, error) {
	for _, c := range cols {
		switch c.Type {
		case sqlstore.TypeText:
			buf = pgcopy.Text(buf, c.Text(i))
		case sqlstore.TypeOptText:
			if s := c.Text(i); s != "" {
				buf = pgcopy.Text(buf, s)
			} else {
				buf = pgcopy.Null(buf)
			}
		case sqlstore.TypeID:
			s := c.Text(i)
			if s == "" {
				buf = pgcopy.Null(buf)
				break
			}
			u, err := uuid.Parse(s)
			if err != nil {
				return nil, fmt.Errorf("postgres: copy into %s: column %s: row %d: not a uuid: %q", table, c.Name, i, s)
			}
			buf = pgcopy.UUID(buf, u)
		case sqlstore.TypeInt, sqlstore.TypeTime:
			if v, ok := c.Int(i); ok {
				buf = pgcopy.Int8(buf, v)
			} else {
				buf = pgcopy.Null(buf)
			}
		case sqlstore.TypeBool:
			buf = pgcopy.Bool(buf, c.Bool(i))
		default:
			return nil, fmt.Errorf("postgres: copy into %s: column %s: unknown type %d", table, c.Name, c.Type)
		}
	}
	return buf, nil
}
