package postgres

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strconv"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/disburse/disburse/sqlstore"
)

// pageRows are pgx's rows as sqlstore.PageRows, read a column at a time
// from the bytes the server sent.
type pageRows struct {
	pgxRows
	values *columnValues
}

func newPageRows(rows pgx.Rows) pageRows {
	return pageRows{pgxRows{rows}, &columnValues{rows: rows}}
}

func (r pageRows) Values() sqlstore.ColumnValues { return r.values }

// columnValues decodes the current row's raw values by each column's
// type and format. A page's payments share their batch and organisation
// and a handful of statuses, so each column keeps the last string it
// made and gives it again for the same bytes, instead of a copy a row.
type columnValues struct {
	rows   pgx.Rows
	fields []pgconn.FieldDescription
	last   []lastString
	err    error
}

// lastString is a column's last value read as a string, and its bytes.
type lastString struct {
	raw []byte
	s   string
}

// column returns column i's bytes (nil for NULL), or false when the row
// has no such column or its type is neither oid nor alt (0: no other);
// want names them for the failure.
func (v *columnValues) column(i int, want string, oid, alt uint32) (raw []byte, binaryFormat, ok bool) {
	if v.fields == nil {
		v.fields = v.rows.FieldDescriptions()
		v.last = make([]lastString, len(v.fields))
	}
	values := v.rows.RawValues()
	if i >= len(v.fields) || i >= len(values) {
		v.fail(fmt.Errorf("postgres: column %d of a row of %d", i, len(values)))
		return nil, false, false
	}
	f := v.fields[i]
	if f.DataTypeOID == oid || alt != 0 && f.DataTypeOID == alt {
		return values[i], f.Format == pgx.BinaryFormatCode, true
	}
	v.fail(fmt.Errorf("postgres: column %s has type %d, want %s", f.Name, f.DataTypeOID, want))
	return nil, false, false
}

func (v *columnValues) fail(err error) {
	if v.err == nil {
		v.err = err
	}
}

func (v *columnValues) Err() error { return v.err }

// ID reads a uuid column as its canonical text, as pgx writes it and
// NewID makes it.
func (v *columnValues) ID(i int) string {
	raw, binaryFormat, ok := v.column(i, "a uuid", pgtype.UUIDOID, pgtype.TextOID)
	if !ok || raw == nil || !binaryFormat {
		return v.remembered(i, raw)
	}
	if len(raw) != 16 {
		v.fail(fmt.Errorf("postgres: a uuid of %d bytes", len(raw)))
		return ""
	}
	last := &v.last[i]
	if bytes.Equal(last.raw, raw) {
		return last.s
	}
	last.raw, last.s = append(last.raw[:0], raw...), uuid.UUID(raw).String()
	return last.s
}

// Text reads a text column: its bytes are the same in either format.
func (v *columnValues) Text(i int) string {
	raw, _, ok := v.column(i, "text", pgtype.TextOID, pgtype.VarcharOID)
	if !ok {
		return ""
	}
	return v.remembered(i, raw)
}

// remembered is raw as a string, the column's last one if raw is its bytes.
func (v *columnValues) remembered(i int, raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	last := &v.last[i]
	if !bytes.Equal(last.raw, raw) {
		last.raw, last.s = append(last.raw[:0], raw...), string(raw)
	}
	return last.s
}

func (v *columnValues) Int(i int) int64 {
	n, _ := v.bigint(i)
	return n
}

// bigint reads a bigint column; null is true for NULL, read as 0.
func (v *columnValues) bigint(i int) (n int64, null bool) {
	raw, binaryFormat, ok := v.column(i, "a bigint", pgtype.Int8OID, 0)
	switch {
	case !ok || raw == nil:
		return 0, true
	case binaryFormat && len(raw) == 8:
		return int64(binary.BigEndian.Uint64(raw)), false
	case binaryFormat:
		v.fail(fmt.Errorf("postgres: a bigint of %d bytes", len(raw)))
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		v.fail(fmt.Errorf("postgres: a bigint: %w", err))
	}
	return n, false
}

func (v *columnValues) Bool(i int) bool {
	raw, binaryFormat, ok := v.column(i, "a boolean", pgtype.BoolOID, 0)
	switch {
	case !ok || len(raw) != 1:
		if ok && raw != nil {
			v.fail(fmt.Errorf("postgres: a boolean of %d bytes", len(raw)))
		}
		return false
	case binaryFormat:
		return raw[0] == 1
	}
	return raw[0] == 't'
}

// Time reads a time column: unix microseconds, UTC, as the store keeps
// every time.
func (v *columnValues) Time(i int) time.Time {
	micros, null := v.bigint(i)
	if null {
		return time.Time{}
	}
	return time.UnixMicro(micros).UTC()
}
