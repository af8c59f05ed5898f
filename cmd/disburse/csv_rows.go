package main

import (
	"errors"
	"io"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/csvpayments"
)

// openCSV reads an upload file's header (internal/csvpayments, which the
// portal's upload reads files with too); its failures are one error.
func openCSV(f io.Reader) (*csvpayments.Reader, error) {
	rows, failures := csvpayments.Open(f)
	if len(failures) > 0 {
		lines := make([]string, len(failures))
		for i, f := range failures {
			lines[i] = f.String()
		}
		return nil, errors.New(strings.Join(lines, "\n"))
	}
	return rows, nil
}

// checkRows holds rows to the service's own rules for payments
// (disburse.Service.CheckPayments), and reports each failure by the line
// and column of the file. It is the one place the CLI calls the domain's
// validation.
func checkRows(svc *disburse.Service, rows []csvpayments.Row, referrals bool) ([]csvpayments.Failure, error) {
	err := svc.CheckPayments(csvpayments.Payments(rows), referrals)
	var e *disburse.Error
	if err == nil || !errors.As(err, &e) || e.Code != disburse.CodeInvalid {
		return nil, err
	}
	return csvpayments.Placed(e, rows), nil
}
