package httpapi

import (
	"errors"
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/export"
	"github.com/disburse/disburse/internal/csvpayments"
)

// exportPayments answers with the batch's results as a CSV file
// (docs/api.md section 4.4), written a page at a time as the pages are
// read. A read that fails once the file has begun cuts it short: logged
// here, since no error answer can follow a status line already sent.
func (s *server) exportPayments(w http.ResponseWriter, r *http.Request, orgID string) error {
	id := r.PathValue("id")
	err := csvpayments.ServeResults(w, r, "payments-"+id+".csv", func(visit func([]disburse.Payment) error) error {
		return export.Payments(r.Context(), s.svc, orgID, id, visit)
	})
	if errors.Is(err, csvpayments.ErrCutShort) {
		s.log.ErrorContext(r.Context(), "export cut short", "request_id", requestIDFrom(r.Context()), "route", s.route(r), "err", err)
		panic(http.ErrAbortHandler)
	}
	return err
}
