package portal

import (
	"errors"
	"net/http"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/approvals"
	"github.com/disburse/disburse/organisations"
)

// Four-eyes approval in the portal (docs/portal.md, "Approvals"): the
// confirmations before a submit and a cancel, the list of approvals, an
// approval's page with its decision, and the threshold an organisation's
// users set. Each confirmation is a page of its own, reached by a plain
// link-like form and confirmed by a plain form: no script decides
// anything, and the confirm button has the focus.

// confirmSubmit shows what a submit of the batch would do now.
func (p *portal) confirmSubmit(w http.ResponseWriter, r *http.Request) error {
	return p.confirmPage(w, r, "submit")
}

// confirmCancel shows what a cancel of the batch would do now.
func (p *portal) confirmCancel(w http.ResponseWriter, r *http.Request) error {
	return p.confirmPage(w, r, "cancel")
}

// confirmPage draws the confirmation of action on the user's own batch;
// a batch that does not allow it is its page with the reason.
func (p *portal) confirmPage(w http.ResponseWriter, r *http.Request, action string) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	pv, err := p.office.Preview(r.Context(), org, r.PathValue("id"))
	if err != nil {
		return err
	}
	b := pv.Batch
	submittable := b.Status == disburse.BatchDraft && b.ApprovalID == ""
	cancellable := b.Status.Allows(disburse.ActionCancel)
	if (action == "submit" && !submittable) || (action == "cancel" && !cancellable) {
		why := "The batch is " + string(b.Status) + ": it cannot be " + map[string]string{"submit": "submitted", "cancel": "cancelled"}[action] + "."
		if action == "submit" && b.ApprovalID != "" {
			why = "The batch waits for an approval already."
		}
		return p.batchPage(w, r, http.StatusConflict, page{Errors: []string{why}})
	}
	verb := map[string]string{"submit": "Submit", "cancel": "Cancel"}[action]
	o, _, err := organisations.Get(r.Context(), p.svc, org)
	if err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "confirm", page{Title: verb + " " + b.Name + "?", Batch: b, Preview: &pv, Confirm: action, Organisation: o})
	return nil
}

// approvals lists the organisation's approvals, the pending ones unless
// the filter says otherwise, newest first.
func (p *portal) approvals(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	status := r.URL.Query().Get("status")
	if _, set := r.URL.Query()["status"]; !set {
		status = string(disburse.ApprovalPending)
	}
	list, err := approvals.List(r.Context(), p.svc.Store, org, approvals.Query{Status: status, Take: "100"})
	if disburse.ErrorCode(err) == disburse.CodeInvalid {
		return notFound
	}
	if err != nil {
		return err
	}
	batches, err := approvals.Batches(r.Context(), p.svc.Store, org, list)
	if err != nil {
		return err
	}
	cur, err := p.office.Currencies(r.Context(), org)
	if err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "approvals", page{Title: "Approvals", Approvals: list, ApprovalBatches: batches, Currency: cur,
		ApprovalStatus: disburse.ApprovalStatuses(), Filter: map[string]string{"status": status}})
	return nil
}

func (p *portal) approval(w http.ResponseWriter, r *http.Request) error {
	return p.approvalPage(w, r, http.StatusOK, page{})
}

// approvalPage draws an approval with its batch's totals as they are now,
// and, while it is pending and the user did not request it, the decision.
func (p *portal) approvalPage(w http.ResponseWriter, r *http.Request, status int, pg page) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	a, err := approvals.Get(r.Context(), p.svc.Store, org, r.PathValue("id"))
	if err != nil {
		return err
	}
	pv, err := p.office.Preview(r.Context(), org, a.BatchID)
	if err != nil {
		return err
	}
	pg.Title, pg.Approval, pg.Preview, pg.Batch = "Approval of "+pv.Batch.Name, a, &pv, pv.Batch
	pg.Mine = user(r).Actor().Same(a.RequestedBy)
	p.render(w, r, status, "approval", pg)
	return nil
}

// approve approves, which submits the batch; too little float rejects
// the approval, and the page says so as the submit's page does. It waits
// its turn at the process's bulk gate first, as the submit does (bulk.go).
func (p *portal) approve(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	r, release, err := p.bulk(w, r, org)
	if err != nil {
		return err
	}
	defer release()
	a, b, err := p.svc.Approve(r.Context(), org, r.PathValue("id"), r.PostFormValue("comment"))
	if e := a.Refusal; e != nil {
		cur, err := p.office.Currencies(r.Context(), org)
		if err != nil {
			return err
		}
		c := cur[org]
		return p.approvalPage(w, r, http.StatusUnprocessableEntity, page{Errors: []string{
			"Not paid: the float is too low. The batch needs " + money(c, e.Required) + ", the account has " + money(c, e.Available) +
				". The approval is rejected and the batch is a draft again: deposit " + money(c, e.Required-e.Available) + " more and submit it again."}})
	}
	if done, err := p.decisionRefused(w, r, err); done || err != nil {
		return err
	}
	r.SetPathValue("id", b.ID)
	return p.batchPage(w, r, http.StatusOK, page{Message: "Approved and submitted: the batch is " + string(b.Status) + "."})
}

// reject rejects: nothing is paid, and the batch is a draft again.
func (p *portal) reject(w http.ResponseWriter, r *http.Request) error {
	org, err := ownBatchOnly(r)
	if err != nil {
		return err
	}
	_, _, err = p.svc.Reject(r.Context(), org, r.PathValue("id"), r.PostFormValue("comment"))
	if done, err := p.decisionRefused(w, r, err); done || err != nil {
		return err
	}
	return p.approvalPage(w, r, http.StatusOK, page{Message: "Rejected: nothing was paid, and the batch is a draft again."})
}

// decisionRefused draws the approval's page with the reason a decision
// was refused (the requester deciding, a decision made already, a comment
// too long) and reports that it did; any other error is returned.
func (p *portal) decisionRefused(w http.ResponseWriter, r *http.Request, err error) (bool, error) {
	var e *disburse.Error
	if err == nil || !errors.As(err, &e) {
		return false, err
	}
	status := map[disburse.Code]int{disburse.CodeForbidden: http.StatusForbidden, disburse.CodeInvalidState: http.StatusConflict,
		disburse.CodeInvalid: http.StatusBadRequest}[e.Code]
	if status == 0 {
		return false, err
	}
	msg := e.Message
	if e.Code == disburse.CodeForbidden {
		msg = "You asked for this approval: another user of the organisation must approve or reject it."
	}
	if e.Code == disburse.CodeInvalid {
		msg = strings.Join(fieldMessages(e), " ")
	}
	return true, p.approvalPage(w, r, status, page{Errors: []string{msg}})
}

// updateApprovalThreshold sets the organisation's approval threshold, an
// organisation user's own (the operator's settings form sets it too); an
// empty field turns approval off.
func (p *portal) updateApprovalThreshold(w http.ResponseWriter, r *http.Request) error {
	id, err := ownOrganisation(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	form := formValues(r, "approvalThreshold")
	_, _, err = organisations.UpdateSettingsBy(r.Context(), p.svc, actor(r), id, organisations.Settings{ApprovalThreshold: thresholdSetting(r)})
	if field, _, ok := fieldErrors(err); ok {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Form: form, Field: field})
	}
	if err != nil {
		return err
	}
	msg := "Approval is off: every submit pays at once."
	if t := strings.TrimSpace(form["approvalThreshold"]); t != "" {
		msg = "Approval threshold saved: a submit of " + t + " or more waits for another user's approval."
	}
	return p.organisationPage(w, r, http.StatusOK, page{Message: msg})
}

// thresholdSetting is a form's approval threshold: empty turns approval
// off; a form without the field leaves the threshold as it is.
func thresholdSetting(r *http.Request) *organisations.ThresholdSetting {
	if !r.PostForm.Has("approvalThreshold") {
		return nil
	}
	text := strings.TrimSpace(r.PostForm.Get("approvalThreshold"))
	return &organisations.ThresholdSetting{Off: text == "", Amount: disburse.Number(text)}
}
