package portal

import (
	"errors"
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/export"
	"github.com/disburse/disburse/internal/csvpayments"
)

// exportPayments is the batch's results as a CSV file, the file of the
// API's GET /batches/{id}/payments.csv (docs/portal.md), for an operator
// or the batch's own organisation (else 404). A read that fails once the
// file has begun cuts it short, logged here.
func (p *portal) exportPayments(w http.ResponseWriter, r *http.Request) error {
	b, err := p.office.ScopedBatch(r.Context(), user(r).Scope(), r.PathValue("id"))
	if err != nil {
		return err
	}
	err = csvpayments.ServeResults(w, r, "payments-"+b.ID+".csv", func(visit func([]disburse.Payment) error) error {
		return export.Payments(r.Context(), p.svc, b.OrganisationID, b.ID, visit)
	})
	if errors.Is(err, csvpayments.ErrCutShort) {
		p.log.Error("portal: export cut short", "route", r.Pattern, "err", err)
		panic(http.ErrAbortHandler)
	}
	return err
}
