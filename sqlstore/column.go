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
// are read through a function so that a chunk of a slice needs no copy;
// the function is kept typed, so that an engine that encodes values itself
// (PostgreSQL's binary COPY) reads them without boxing each one.
type Column struct {
	Name string
	Type ColumnType
	// One of these is set, as Type says: text for TypeText, TypeOptText and
	// TypeID; number for TypeInt and TypeTime (false for NULL); flag for
	// TypeBool.
	text   func(i int) string
	number func(i int) (int64, bool)
	flag   func(i int) bool
}

// Value returns row i's value as a driver value: nil, string, int64 or bool,
// as the column's Type says.
func (c Column) Value(i int) any {
	switch c.Type {
	case TypeText:
		return c.text(i)
	case TypeOptText, TypeID:
		return nullID(c.text(i))
	case TypeBool:
		return c.flag(i)
	}
	if n, ok := c.number(i); ok {
		return n
	}
	return nil
}

// Text is row i's value in a TypeText, TypeOptText or TypeID column, ""
// for NULL.
func (c Column) Text(i int) string { return c.text(i) }

// Int is row i's value in a TypeInt or TypeTime column (unix
// microseconds); ok is false for NULL.
func (c Column) Int(i int) (n int64, ok bool) { return c.number(i) }

// Bool is row i's value in a TypeBool column.
func (c Column) Bool(i int) bool { return c.flag(i) }

// shift returns the column seen from row offset on: the rows of one chunk.
func (c Column) shift(offset int) Column {
	if offset == 0 {
		return c
	}
	if f := c.text; f != nil {
		c.text = func(i int) string { return f(i + offset) }
	}
	if f := c.number; f != nil {
		c.number = func(i int) (int64, bool) { return f(i + offset) }
	}
	if f := c.flag; f != nil {
		c.flag = func(i int) bool { return f(i + offset) }
	}
	return c
}

// TextCol is a text column.
func TextCol(name string, f func(i int) string) Column {
	return Column{Name: name, Type: TypeText, text: f}
}

// OptTextCol is a text column where the empty string is NULL.
func OptTextCol(name string, f func(i int) string) Column {
	return Column{Name: name, Type: TypeOptText, text: f}
}

// IDCol is an id column; an empty id is NULL.
func IDCol(name string, f func(i int) string) Column {
	return Column{Name: name, Type: TypeID, text: f}
}

// IntCol is a BIGINT column.
func IntCol(name string, f func(i int) int64) Column {
	return Column{Name: name, Type: TypeInt, number: func(i int) (int64, bool) { return f(i), true }}
}

// BoolCol is a boolean column.
func BoolCol(name string, f func(i int) bool) Column {
	return Column{Name: name, Type: TypeBool, flag: f}
}

// TimeCol is a time column, stored as unix microseconds; the zero time is NULL.
func TimeCol(name string, f func(i int) time.Time) Column {
	return Column{Name: name, Type: TypeTime, number: func(i int) (int64, bool) {
		t := f(i)
		return t.UnixMicro(), !t.IsZero()
	}}
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
