package pgcopy

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"
)

// TestReaderFormat: the stream is the header, each row's field count and
// fields (a length, then the bytes; -1 for NULL), and the trailer, as
// PostgreSQL's COPY documents its binary format; read a byte at a time it
// is the same.
func TestReaderFormat(t *testing.T) {
	rows := func() *Reader {
		i := 0
		return NewReader(func(buf []byte) ([]byte, bool, error) {
			if i == 2 {
				return buf, false, nil
			}
			i++
			buf = Text(Row(buf, 5), "Zoë")
			buf = Null(buf)
			buf = Int8(buf, -2)
			buf = Bool(buf, i == 1)
			return UUID(buf, [16]byte{15: byte(i)}), true, nil
		})
	}
	row := func(flag byte, last byte) []byte {
		return bytes.Join([][]byte{
			{0, 5},
			{0, 0, 0, 4}, []byte("Zoë"),
			{0xff, 0xff, 0xff, 0xff},
			{0, 0, 0, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe},
			{0, 0, 0, 1, flag},
			{0, 0, 0, 16}, make([]byte, 15), {last},
		}, nil)
	}
	want := bytes.Join([][]byte{
		[]byte("PGCOPY\n\xff\r\n\x00"), {0, 0, 0, 0}, {0, 0, 0, 0},
		row(1, 1), row(0, 2),
		{0xff, 0xff},
	}, nil)
	if err := iotest.TestReader(rows(), want); err != nil {
		t.Error(err)
	}
	got, err := io.ReadAll(iotest.OneByteReader(rows()))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("read a byte at a time: %q, %v; want %q", got, err, want)
	}
}

// TestReaderError: a row that cannot be encoded ends the stream with its
// error, after the rows before it.
func TestReaderError(t *testing.T) {
	bad := errors.New("row 2: not a uuid")
	i := 0
	r := NewReader(func(buf []byte) ([]byte, bool, error) {
		if i++; i == 2 {
			return nil, false, bad
		}
		return Int8(Row(buf, 1), 7), true, nil
	})
	got, err := io.ReadAll(r)
	if !errors.Is(err, bad) {
		t.Fatalf("err = %v, want %v", err, bad)
	}
	if want := len(header) + 2 + 4 + 8; len(got) != want {
		t.Errorf("read %d bytes before the error, want %d (the header and the first row)", len(got), want)
	}
}

// TestQuery: the statement names the table and columns quoted, in order.
func TestQuery(t *testing.T) {
	got := Query("payments", []string{"id", "held_external_id"})
	if want := `COPY "payments" ("id", "held_external_id") FROM STDIN (FORMAT binary)`; got != want {
		t.Errorf("Query = %s, want %s", got, want)
	}
}
