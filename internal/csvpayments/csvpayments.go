// Package csvpayments reads a CSV file of payments the way both the
// command line's upload and the portal's take it: a header line naming
// the columns, in any order and any case, then one payment a line. It
// reads rows only; the rules for a payment are the domain's
// (disburse.Service.CheckPayments), which the callers apply. It also
// writes a batch's results, the file the API's and the portal's export
// give (results.go, serve.go).
package csvpayments

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strings"

	"github.com/disburse/disburse"
)

// Columns are the columns a file may have: the JSON names of
// disburse.PaymentInput's fields, in its order; msisdn and amount are
// required.
var Columns, fields = columns()

// The columns the reader needs by name.
var (
	colMsisdn         = columnOf("msisdn")
	colAmount         = columnOf("amount")
	colReferralAmount = columnOf("referralAmount")
	colReferralMsisdn = columnOf("referralMsisdn")
)

// columns lists PaymentInput's JSON names and, for each, the index of its
// field. Every field is text as the client wrote it (a string or a
// disburse.Number), so that a cell is set as it is.
func columns() (names []string, fields []int) {
	t := reflect.TypeFor[disburse.PaymentInput]()
	for i := range t.NumField() {
		sf := t.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "-" || !sf.IsExported() {
			continue
		}
		if name == "" || sf.Type.Kind() != reflect.String {
			panic(fmt.Sprintf("csvpayments: disburse.PaymentInput.%s needs a json name and a string type to be a column", sf.Name))
		}
		names, fields = append(names, name), append(fields, i)
	}
	return names, fields
}

// columnOf is the position of name in Columns.
func columnOf(name string) int {
	i := slices.Index(Columns, name)
	if i < 0 {
		panic("csvpayments: disburse.PaymentInput has no field " + name)
	}
	return i
}

// Failure is one reason a file or a row is refused, by line and column;
// Column is empty when the whole line is at fault.
type Failure struct {
	Line    int
	Column  string
	Value   string
	Message string
}

func (f Failure) String() string {
	if f.Column == "" {
		return fmt.Sprintf("line %d: %s", f.Line, f.Message)
	}
	return fmt.Sprintf("line %d, column %s: %s", f.Line, f.Column, f.Message)
}

// Row is one payment of the file and the line it starts on.
type Row struct {
	Line    int
	Payment disburse.PaymentInput
}

// Reader reads a file's rows a chunk at a time; it never holds more than
// the chunk it returns.
type Reader struct {
	r      *csv.Reader
	index  []int // the position of each of Columns in a record, plus 1; 0 when absent
	fields int   // fields in the header, and so in every row
}

// Open reads the header line. Every problem of the header is returned,
// and then no Reader: a file whose columns are not known is not read.
func Open(r io.Reader) (*Reader, []Failure) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1 // a row of the wrong width is a failure of that row, said plainly
	cr.ReuseRecord = true
	header, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, []Failure{{Line: 1, Message: "the file is empty; it needs a header line, then one payment a line"}}
	}
	if err != nil {
		return nil, []Failure{{Line: 1, Message: "the header line cannot be read: " + problem(err)}}
	}
	f := &Reader{r: cr, index: make([]int, len(Columns)), fields: len(header)}
	var failures []Failure
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")) // a spreadsheet's byte-order mark
		known := -1
		for c, column := range Columns {
			if strings.EqualFold(column, name) {
				known = c
			}
		}
		switch {
		case known < 0:
			failures = append(failures, Failure{Line: 1, Column: name, Value: name,
				Message: "unknown column; the columns are " + strings.Join(Columns, ",") + " (any order)"})
		case f.index[known] != 0:
			failures = append(failures, Failure{Line: 1, Column: name, Value: name, Message: "this column appears twice"})
		default:
			f.index[known] = i + 1
		}
	}
	for _, c := range []int{colMsisdn, colAmount} {
		if f.index[c] == 0 {
			failures = append(failures, Failure{Line: 1, Message: "the header has no " + Columns[c] + " column; msisdn and amount are required"})
		}
	}
	if len(failures) > 0 {
		return nil, failures
	}
	return f, nil
}

// HasReferrals reports whether the file has a referral column.
func (f *Reader) HasReferrals() bool {
	return f.index[colReferralAmount] != 0 || f.index[colReferralMsisdn] != 0
}

// Offset is how many bytes of the file have been read.
func (f *Reader) Offset() int64 { return f.r.InputOffset() }

// Next returns up to n rows, and the lines among them that are not rows
// (broken quoting, a wrong number of fields), each with its failure. At
// the end of the file it returns io.EOF and nothing else.
func (f *Reader) Next(n int) ([]Row, []Failure, error) {
	rows := make([]Row, 0, min(n, 10_000))
	var failures []Failure
	for len(rows)+len(failures) < n {
		record, err := f.r.Read()
		var parseErr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			if len(rows)+len(failures) == 0 {
				return nil, nil, io.EOF
			}
			return rows, failures, nil
		case errors.As(err, &parseErr):
			failures = append(failures, notRead(parseErr))
			continue
		case err != nil:
			return nil, nil, err
		}
		line, _ := f.r.FieldPos(0)
		if len(record) != f.fields {
			failures = append(failures, Failure{Line: line, Message: fmt.Sprintf("the row has %d fields, the header %d", len(record), f.fields)})
			continue
		}
		rows = append(rows, Row{Line: line})
		p := reflect.ValueOf(&rows[len(rows)-1].Payment).Elem()
		for c, i := range f.index {
			if i != 0 {
				p.Field(fields[c]).SetString(strings.TrimSpace(record[i-1]))
			}
		}
	}
	return rows, failures, nil
}

// notRead is the failure of a record encoding/csv could not read, on the
// line the record starts on. A quote that opens a field and is not closed
// where it should be makes the reader take the lines after it into that
// one field, up to where it gave up (the file's end, or a quote it could
// not place): the failure names those lines, since none of them is read
// as a row (docs/portal.md, "Organisation users").
func notRead(pe *csv.ParseError) Failure {
	if pe.Line <= pe.StartLine {
		return Failure{Line: pe.StartLine, Message: problem(pe)}
	}
	return Failure{Line: pe.StartLine, Message: fmt.Sprintf(
		"%s: the field quoted on line %d runs on to line %d, so lines %d to %d are read as one field, not as rows; check the quotes on line %d",
		problem(pe), pe.StartLine, pe.Line, pe.StartLine, pe.Line, pe.StartLine)}
}

// problem says what encoding/csv found, without its line prefix.
func problem(err error) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// Placed returns a validation error's failures placed by line and column
// of the file: a failure's payment index is its row in rows. A failure of
// no one payment (a limit of the request or the batch) has line 0.
func Placed(e *disburse.Error, rows []Row) []Failure {
	out := make([]Failure, 0, len(e.Fields))
	for _, fe := range e.Fields {
		f := Failure{Column: column(fe.FieldName), Value: fe.FieldValue, Message: fe.ErrorMessage}
		if fe.Index != nil && *fe.Index < len(rows) {
			f.Line = rows[*fe.Index].Line
		}
		out = append(out, f)
	}
	return out
}

// column is the header of a domain field name: ExternalId is externalId.
func column(field string) string {
	if field == "" {
		return ""
	}
	return strings.ToLower(field[:1]) + field[1:]
}

// Payments are the rows' payments, in order.
func Payments(rows []Row) []disburse.PaymentInput {
	out := make([]disburse.PaymentInput, len(rows))
	for i, r := range rows {
		out[i] = r.Payment
	}
	return out
}
