package sqlstore

import (
	"database/sql"
	"fmt"
	"time"
)

// SQLPageRows are database/sql's rows as PageRows, for an engine whose
// driver gives its values as they are (SQLite's): each row is scanned
// once, every column into the driver's own value, and its columns are
// read from there.
func SQLPageRows(rows *sql.Rows) PageRows {
	r := &sqlPageRows{Rows: rows}
	r.values.rows = rows
	return r
}

type sqlPageRows struct {
	*sql.Rows
	values sqlValues
}

func (r *sqlPageRows) Next() bool {
	r.values.scanned = false
	return r.Rows.Next()
}

func (r *sqlPageRows) Values() ColumnValues { return &r.values }

// sqlValues are the current row's values as the driver gave them.
type sqlValues struct {
	rows    *sql.Rows
	row     []any
	dest    []any // pointers into row, for Scan
	scanned bool
	err     error
}

// value is column i's value, the row scanned at the first call after Next.
func (v *sqlValues) value(i int) any {
	if !v.scanned {
		v.scanned = true
		if v.dest == nil {
			columns, err := v.rows.Columns()
			if err != nil {
				v.fail(err)
				return nil
			}
			v.row, v.dest = make([]any, len(columns)), make([]any, len(columns))
			for c := range v.row {
				v.dest[c] = &v.row[c]
			}
		}
		if err := v.rows.Scan(v.dest...); err != nil {
			v.fail(err)
		}
	}
	if i >= len(v.row) {
		v.fail(fmt.Errorf("sqlstore: column %d of a row of %d", i, len(v.row)))
		return nil
	}
	return v.row[i]
}

func (v *sqlValues) fail(err error) {
	if v.err == nil {
		v.err = err
	}
}

func (v *sqlValues) wrong(i int, want string) {
	v.fail(fmt.Errorf("sqlstore: column %d is %T, want %s", i, v.row[i], want))
}

func (v *sqlValues) Err() error { return v.err }

func (v *sqlValues) ID(i int) string { return v.Text(i) }

func (v *sqlValues) Text(i int) string {
	switch x := v.value(i).(type) {
	case nil:
		return ""
	case string:
		return x
	case []byte:
		return string(x)
	}
	v.wrong(i, "text")
	return ""
}

func (v *sqlValues) Int(i int) int64 {
	switch x := v.value(i).(type) {
	case nil:
		return 0
	case int64:
		return x
	}
	v.wrong(i, "an integer")
	return 0
}

func (v *sqlValues) Bool(i int) bool {
	switch x := v.value(i).(type) {
	case nil:
		return false
	case bool:
		return x
	case int64:
		return x != 0
	}
	v.wrong(i, "a boolean")
	return false
}

func (v *sqlValues) Time(i int) time.Time {
	switch x := v.value(i).(type) {
	case nil:
		return time.Time{}
	case int64:
		return time.UnixMicro(x).UTC()
	}
	v.wrong(i, "unix microseconds")
	return time.Time{}
}
