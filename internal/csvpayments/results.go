package csvpayments

import (
	"bufio"
	"encoding/csv"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
)

// ResultColumns are the columns of a batch's results, in their order
// (docs/api.md section 4.4): what each payment was to pay, what became of
// it, and its id. Each cell is the text the API's JSON gives the member of
// the same name, empty where the JSON leaves the member out.
var ResultColumns = []string{"msisdn", "amount", "firstname", "lastname", "externalId", "statusCode",
	"isMember", "settledAt", "referralAmount", "referralMsisdn", "referralStatusCode", "id"}

// ResultWriter writes payments as CSV rows under ResultColumns.
type ResultWriter struct {
	csv *csv.Writer
	row []string // one payment's cells, its memory reused for the next
}

// NewResultWriter writes to w through a buffer of size bytes: w sees
// writes of at most size bytes, and none until the buffer is full or
// Flush is called.
func NewResultWriter(w io.Writer, size int) *ResultWriter {
	// csv.NewWriter keeps a *bufio.Writer this large as its own buffer.
	return &ResultWriter{csv: csv.NewWriter(bufio.NewWriterSize(w, size)), row: make([]string, 0, len(ResultColumns))}
}

// WriteHeader writes the header line.
func (rw *ResultWriter) WriteHeader() error { return rw.csv.Write(ResultColumns) }

// Write writes p's row.
func (rw *ResultWriter) Write(p disburse.Payment) error {
	row := append(rw.row[:0],
		p.Msisdn, p.Amount.String(), p.Firstname, p.Lastname, p.ExternalID, string(p.Status),
		strconv.FormatBool(p.IsMember), dateTime(p.SettledAt),
		optionalAmount(p.ReferralAmount), p.ReferralMsisdn, string(p.ReferralStatus), p.ID)
	for i, cell := range row {
		row[i] = neutralise(cell)
	}
	return rw.csv.Write(row)
}

// Flush writes what is buffered to the writer underneath.
func (rw *ResultWriter) Flush() error {
	rw.csv.Flush()
	return rw.csv.Error()
}

// neutralise keeps a spreadsheet from reading a cell as a formula (OWASP,
// "CSV Injection"): a cell that begins with =, +, -, @, a tab or a
// carriage return gets a single quote in front. Amounts are never
// negative and msisdns are digits, but names and external ids may begin
// with any of these.
func neutralise(cell string) string {
	if cell != "" && strings.IndexByte("=+-@\t\r", cell[0]) >= 0 {
		return "'" + cell
	}
	return cell
}

// dateTime is t as the API writes it, or empty where the API leaves it out.
func dateTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(disburse.DateTimeLayout)
}

// optionalAmount is an amount the API leaves out when it is zero (a
// payment's referral).
func optionalAmount(m disburse.Money) string {
	if m == 0 {
		return ""
	}
	return m.String()
}
