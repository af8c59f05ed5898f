package sqlstore

import "time"

// ColumnType is the SQL type of a bulk column. SQLite needs only the Go
// value; PostgreSQL types its arrays by it.
type ColumnType int

// The column types. Value returns the Go type named in each comment.
const (
	TypeText    ColumnType = iota // string, never NULL
	TypeOptText                   // string, nil (NULL) when empty
	TypeID                        // string id, nil (NULL) when empty; uuid on PostgreSQL
	TypeInt                       // int64
	TypeBool                      // bool
	TypeTime                      // int64 unix microseconds, nil (NULL) for the zero time
)

// Column is one column of rows passed to a statement in bulk. Its values
// are read through a function so that a chunk of a slice needs no copy.
type Column struct {
	Name  string
	Type  ColumnType
	value func(i int) any
}

// Value returns row i's value as a driver value: nil, string, int64 or bool,
// as the column's Type says.
func (c Column) Value(i int) any { return c.value(i) }

// shift returns the column seen from row offset on: the rows of one chunk.
func (c Column) shift(offset int) Column {
	if offset == 0 {
		return c
	}
	v := c.value
	c.value = func(i int) any { return v(i + offset) }
	return c
}

// TextCol is a text column.
func TextCol(name string, f func(i int) string) Column {
	return Column{name, TypeText, func(i int) any { return f(i) }}
}

// OptTextCol is a text column where the empty string is NULL.
func OptTextCol(name string, f func(i int) string) Column {
	return Column{name, TypeOptText, func(i int) any { return nullID(f(i)) }}
}

// IDCol is an id column; an empty id is NULL.
func IDCol(name string, f func(i int) string) Column {
	return Column{name, TypeID, func(i int) any { return nullID(f(i)) }}
}

// IntCol is a BIGINT column.
func IntCol(name string, f func(i int) int64) Column {
	return Column{name, TypeInt, func(i int) any { return f(i) }}
}

// BoolCol is a boolean column.
func BoolCol(name string, f func(i int) bool) Column {
	return Column{name, TypeBool, func(i int) any { return f(i) }}
}

// TimeCol is a time column, stored as unix microseconds; the zero time is NULL.
func TimeCol(name string, f func(i int) time.Time) Column {
	return Column{name, TypeTime, func(i int) any { return micros(f(i)) }}
}

// columnNames lists the names of cols for a column list.
func columnNames(cols []Column) string {
	return qualified("", cols)
}

// qualified lists the names of cols, each prefixed by alias and a dot.
func qualified(alias string, cols []Column) string {
	s := ""
	for i, c := range cols {
		if i > 0 {
			s += ", "
		}
		if alias != "" {
			s += alias + "."
		}
		s += c.Name
	}
	return s
}

// setFrom is the SET list that writes cols from the same columns of alias.
func setFrom(alias string, cols []Column) string {
	set := ""
	for i, c := range cols {
		if i > 0 {
			set += ", "
		}
		set += c.Name + " = " + alias + "." + c.Name
	}
	return set
}
