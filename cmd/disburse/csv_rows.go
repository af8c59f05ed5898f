package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/disburse/disburse"
)

// csvColumns are the columns an upload file may have, by header name, in
// any order; msisdn and amount are required.
var csvColumns = []string{"msisdn", "amount", "firstname", "lastname", "externalId", "referralAmount", "referralMsisdn"}

// csvRow is one payment of the file and the line it starts on.
type csvRow struct {
	line int
	in   disburse.PaymentInput
}

// rowFailure is one reason a file is refused, by line and column.
type rowFailure struct {
	line    int
	column  string
	message string
}

func (f rowFailure) String() string {
	if f.column == "" {
		return fmt.Sprintf("line %d: %s", f.line, f.message)
	}
	return fmt.Sprintf("line %d, column %s: %s", f.line, f.column, f.message)
}

// csvFile reads an upload file's rows in chunks. It never holds more than
// one chunk.
type csvFile struct {
	r       *csv.Reader
	index   map[string]int // column name → position in a record
	failed  []rowFailure   // rows that are not even records
	hasRefs bool           // the file has referral columns
}

// openCSV reads the header: every column must be one of csvColumns, once;
// msisdn and amount must be there.
func openCSV(r io.Reader) (*csvFile, error) {
	cr := csv.NewReader(r)
	cr.ReuseRecord = true
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("line 1: reading the header: %w", err)
	}
	f := &csvFile{r: cr, index: map[string]int{}}
	var unknown []string
	for i, name := range header {
		name = strings.TrimSpace(strings.TrimPrefix(name, "\ufeff")) // a spreadsheet's byte-order mark
		known := slices.IndexFunc(csvColumns, func(c string) bool { return strings.EqualFold(c, name) })
		switch {
		case known < 0:
			unknown = append(unknown, fmt.Sprintf("%q", name))
		case f.index[csvColumns[known]] != 0:
			return nil, fmt.Errorf("line 1: column %s appears twice", csvColumns[known])
		default:
			f.index[csvColumns[known]] = i + 1 // 0 means absent
		}
	}
	if len(unknown) > 0 {
		return nil, fmt.Errorf("line 1: unknown column(s) %s; the columns are %s (any order)", strings.Join(unknown, ", "), strings.Join(csvColumns, ","))
	}
	for _, required := range []string{"msisdn", "amount"} {
		if f.index[required] == 0 {
			return nil, fmt.Errorf("line 1: the column %s is required", required)
		}
	}
	f.hasRefs = f.index["referralAmount"] != 0 || f.index["referralMsisdn"] != 0
	return f, nil
}

// next returns up to n rows, and io.EOF after the last.
func (f *csvFile) next(n int) ([]csvRow, error) {
	rows := make([]csvRow, 0, n)
	for len(rows) < n {
		record, err := f.r.Read()
		var parseErr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			if len(rows) == 0 {
				return nil, io.EOF
			}
			return rows, nil
		case errors.As(err, &parseErr):
			f.failed = append(f.failed, rowFailure{line: parseErr.StartLine, message: parseErr.Err.Error()})
			continue
		case err != nil:
			return nil, err
		}
		line, _ := f.r.FieldPos(0)
		get := func(column string) string {
			if i := f.index[column]; i != 0 {
				return strings.TrimSpace(record[i-1])
			}
			return ""
		}
		rows = append(rows, csvRow{line: line, in: disburse.PaymentInput{
			Msisdn: get("msisdn"), Amount: disburse.Number(get("amount")), Firstname: get("firstname"), Lastname: get("lastname"),
			ExternalID: get("externalId"), ReferralAmount: disburse.Number(get("referralAmount")), ReferralMsisdn: get("referralMsisdn"),
		}})
	}
	return rows, nil
}

// checkRows holds rows to the service's own rules for payments
// (disburse.Service.CheckPayments), and reports each failure by the line
// and column of the file. It is the one place the CLI calls the domain's
// validation.
func checkRows(svc *disburse.Service, rows []csvRow, referrals bool) ([]rowFailure, error) {
	in := make([]disburse.PaymentInput, len(rows))
	for i, r := range rows {
		in[i] = r.in
	}
	err := svc.CheckPayments(in, referrals)
	var e *disburse.Error
	if err == nil || !errors.As(err, &e) || e.Code != disburse.CodeInvalid {
		return nil, err
	}
	failures := make([]rowFailure, 0, len(e.Fields))
	for _, f := range e.Fields {
		line := 0
		if f.Index != nil {
			line = rows[*f.Index].line
		}
		column := strings.ToLower(f.FieldName[:1]) + f.FieldName[1:]
		failures = append(failures, rowFailure{line: line, column: column, message: f.ErrorMessage})
	}
	return failures, nil
}
