package portal

import (
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// batches lists batches newest first: every organisation's for an
// operator (filtered by organisation), the user's own organisation's else.
func (p *portal) batches(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := backoffice.BatchFilter{OrganisationID: strings.TrimSpace(q.Get("organisation")), Status: disburse.BatchStatus(q.Get("status")),
		Before: q.Get("before"), Limit: pageSize + 1}
	list, err := p.office.AllBatches(r.Context(), user(r).Scope(), f)
	pg := page{Title: "Batches", Statuses: disburse.BatchStatuses(),
		Filter: map[string]string{"organisation": f.OrganisationID, "status": string(f.Status)}}
	if field, _, ok := fieldErrors(err); ok {
		for _, msg := range field {
			pg.Errors = append(pg.Errors, msg)
		}
		p.render(w, r, http.StatusBadRequest, "batches", pg)
		return nil
	}
	if err != nil {
		return err
	}
	pg.Batches = list
	if len(list) > pageSize {
		pg.Batches, pg.NextCursor = list[:pageSize], list[pageSize-1].ID
	}
	orgs := make([]string, len(pg.Batches))
	for i, b := range pg.Batches {
		orgs[i] = b.OrganisationID
	}
	if pg.Currency, err = p.office.Currencies(r.Context(), orgs...); err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "batches", pg)
	return nil
}

// createBatch is an organisation user's: an operator pays for nobody.
func (p *portal) createBatch(w http.ResponseWriter, r *http.Request) error {
	u := user(r)
	if u.Role != backoffice.RoleOrganisation {
		return notFound
	}
	form := formValues(r, "name", "externalId")
	b, err := p.svc.CreateBatch(r.Context(), u.OrganisationID, disburse.BatchInput{Name: form["name"], ExternalID: form["externalId"]})
	if field, _, ok := fieldErrors(err); ok {
		r.SetPathValue("id", u.OrganisationID)
		return p.organisationPage(w, r, http.StatusBadRequest, page{Field: field, Form: form})
	}
	if err != nil {
		return err
	}
	http.Redirect(w, r, "/portal/batches/"+b.ID, http.StatusSeeOther)
	return nil
}

func (p *portal) batch(w http.ResponseWriter, r *http.Request) error {
	return p.batchPage(w, r, http.StatusOK, page{})
}

// batchPage draws a batch with one page of its payments, read from the
// cursor ?after=: a batch of a million opens as fast as one of ten.
func (p *portal) batchPage(w http.ResponseWriter, r *http.Request, status int, pg page) error {
	scope := user(r).Scope()
	b, err := p.office.ScopedBatch(r.Context(), scope, r.PathValue("id"))
	if err != nil {
		return err
	}
	after := r.URL.Query().Get("after")
	if after != "" && !disburse.ValidID(after) {
		return notFound
	}
	payments, err := p.office.PaymentsPage(r.Context(), scope, b.ID, after, pageSize+1)
	if err != nil {
		return err
	}
	org, _, err := organisations.Get(r.Context(), p.svc, b.OrganisationID)
	if err != nil {
		return err
	}
	pg.Title, pg.Batch, pg.Payments, pg.Organisation = "Batch "+b.Name, b, payments, org
	pg.Filter = map[string]string{"after": after}
	if b.Status == disburse.BatchDraft {
		pg.UploadID = disburse.NewID() // the next upload's, so the page can poll its progress
	}
	if len(payments) > pageSize {
		pg.Payments, pg.NextCursor = payments[:pageSize], payments[pageSize-1].ID
	}
	if pg.Upload == nil && b.Status == disburse.BatchDraft {
		if pg.Upload, err = p.keptUpload(r, scope, b.ID); err != nil {
			return err
		}
	}
	p.render(w, r, status, "batch", pg)
	return nil
}

// ownBatchOnly lets an organisation user act on their own batch; an
// operator looks but does not pay, so the operator gets 404 too.
func ownBatchOnly(r *http.Request) (string, error) {
	u := user(r)
	if u.Role != backoffice.RoleOrganisation {
		return "", notFound
	}
	return u.OrganisationID, nil
}

// submit shows the float check's shortfall plainly when it fails, and
// the approval when the batch is at or above the approval threshold. It
// waits its turn at the process's bulk gate first (bulk.go).
func (p *portal) submit(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	r, release, err := p.bulk(w, r, org)
	if err != nil {
		return err
	}
	defer release()
	sub, err := p.svc.SubmitSpooled(r.Context(), org, r.PathValue("id"), nil)
	var e *disburse.Error
	if errors.As(err, &e) && e.Code == disburse.CodeInsufficientFloat {
		cur, err := p.office.Currencies(r.Context(), org)
		if err != nil {
			return err
		}
		c := cur[org]
		return p.batchPage(w, r, http.StatusUnprocessableEntity, page{Errors: []string{
			"Not submitted: the float is too low. The batch needs " + money(c, e.Required) + ", the account has " + money(c, e.Available) +
				", so " + money(c, e.Required-e.Available) + " more must be deposited first. The batch stays a draft."}})
	}
	if err != nil {
		return err
	}
	if a := sub.Approval; a != nil {
		r.SetPathValue("id", a.ID)
		return p.approvalPage(w, r, http.StatusOK, page{Message: "Sent for approval: nothing is paid until another user of the organisation approves it."})
	}
	return p.batchPage(w, r, http.StatusOK, page{Message: "Submitted: the batch is " + string(sub.Batch.Status) + "."})
}

func (p *portal) cancel(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	b, err := p.svc.Cancel(r.Context(), org, r.PathValue("id"))
	var e *disburse.Error
	if errors.As(err, &e) && e.Code == disburse.CodeInvalidState {
		// Another user got there first: say so on the batch's page.
		return p.batchPage(w, r, http.StatusConflict, page{Errors: []string{"Not cancelled: " + e.Message + "."}})
	}
	if err != nil {
		return err
	}
	return p.batchPage(w, r, http.StatusOK, page{Message: "The batch is " + string(b.Status) + "."})
}

// leg is one leg of a payment as its page shows it: its state and the
// ledger transfers that moved its money.
type leg struct {
	Name, To                              string
	Currency                              string // of the amount and the transfers
	Amount                                disburse.Money
	Status                                disburse.PaymentStatus
	SettledAt, ReversalDueAt, CancelledAt time.Time
	Transfers                             []backoffice.LegTransfer
}

// payment draws a payment with its legs and each leg's transfers, for
// an operator or the payment's own organisation (else 404).
func (p *portal) payment(w http.ResponseWriter, r *http.Request) error {
	pay, transfers, err := p.office.ScopedPaymentTransfers(r.Context(), user(r).Scope(), r.PathValue("id"))
	if err != nil {
		return err
	}
	cur, err := p.office.Currencies(r.Context(), pay.OrganisationID)
	if err != nil {
		return err
	}
	c := cur[pay.OrganisationID]
	legs := []leg{{Name: "payment", To: pay.Msisdn, Currency: c, Amount: pay.Amount, Status: pay.Status,
		SettledAt: pay.SettledAt, ReversalDueAt: pay.ReversalDueAt, CancelledAt: pay.CancelledAt}}
	if pay.HasReferral() {
		legs = append(legs, leg{Name: "referral", To: pay.ReferralMsisdn, Currency: c, Amount: pay.ReferralAmount, Status: pay.ReferralStatus,
			SettledAt: pay.ReferralSettledAt, ReversalDueAt: pay.ReversalDueAt})
	}
	for _, t := range transfers {
		i := 0
		if t.Leg == disburse.LegReferral && len(legs) > 1 {
			i = 1
		}
		legs[i].Transfers = append(legs[i].Transfers, t)
	}
	p.render(w, r, http.StatusOK, "payment", page{Title: "Payment to " + pay.Msisdn, Payment: pay, Legs: legs})
	return nil
}

func (p *portal) deletePayment(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	pay, err := p.svc.DeletePayment(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return err
	}
	r.SetPathValue("id", pay.BatchID)
	return p.batchPage(w, r, http.StatusOK, page{Message: "Payment to " + pay.Msisdn + " deleted."})
}
