// Package pgcopy writes rows in PostgreSQL's binary COPY format (COPY ...
// FROM STDIN (FORMAT binary)), for pgconn.PgConn.CopyFrom, from values
// whose types the caller knows: pgx's own CopyFrom asks the server for the
// columns' types and looks up an encoder for every value, several times
// the CPU of the copy's client side (docs/benchmarks.md, "The add and the
// stores").
package pgcopy

import (
	"encoding/binary"
	"io"
	"strings"

	"github.com/jackc/pgx/v5"
)

// Query is the statement that copies rows of cols into table in this
// format, the names quoted.
func Query(table string, cols []string) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = pgx.Identifier{c}.Sanitize()
	}
	return "COPY " + pgx.Identifier{table}.Sanitize() + " (" + strings.Join(names, ", ") + ") FROM STDIN (FORMAT binary)"
}

// header opens the format: the signature, no flags, no header extension.
const header = "PGCOPY\n\377\r\n\000" + "\x00\x00\x00\x00" + "\x00\x00\x00\x00"

// Reader is a COPY stream encoded a row at a time as it is read, so that
// its memory is a row's and the reader's buffer, whatever the rows.
type Reader struct {
	next    func(buf []byte) ([]byte, bool, error)
	done    bool   // the trailer is encoded
	pending []byte // encoded and not yet read
	scratch []byte // the row being encoded, reused
}

// NewReader returns the stream of the rows next appends to buf one at a
// time (a Row, then each of its fields); next reports false, having
// appended nothing, when there are no more rows.
func NewReader(next func(buf []byte) ([]byte, bool, error)) *Reader {
	return &Reader{next: next, pending: []byte(header)}
}

// Read fills p with whole rows while they fit, and a row that does not fit
// in part, the rest of it in the next Read.
func (r *Reader) Read(p []byte) (int, error) {
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	for len(r.pending) == 0 && !r.done && n < len(p) {
		buf, more, err := r.next(r.scratch[:0])
		if err != nil {
			return n, err
		}
		if !more {
			buf = binary.BigEndian.AppendUint16(buf, 0xffff) // a row of -1 fields: the end
			r.done = true
		}
		r.scratch = buf
		k := copy(p[n:], buf)
		n += k
		r.pending = buf[k:]
	}
	if n == 0 && len(r.pending) == 0 && r.done {
		return 0, io.EOF
	}
	return n, nil
}

// Row appends the start of a row of the given number of fields.
func Row(buf []byte, fields int) []byte {
	return binary.BigEndian.AppendUint16(buf, uint16(fields))
}

// Text appends a text field.
func Text(buf []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(buf, uint32(len(s))), s...)
}

// Null appends a NULL field.
func Null(buf []byte) []byte {
	return binary.BigEndian.AppendUint32(buf, 0xffffffff) // a length of -1
}

// Int8 appends a bigint field.
func Int8(buf []byte, v int64) []byte {
	return binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint32(buf, 8), uint64(v))
}

// Bool appends a boolean field.
func Bool(buf []byte, v bool) []byte {
	b := byte(0)
	if v {
		b = 1
	}
	return append(binary.BigEndian.AppendUint32(buf, 1), b)
}

// UUID appends a uuid field.
func UUID(buf []byte, u [16]byte) []byte {
	return append(binary.BigEndian.AppendUint32(buf, 16), u[:]...)
}
