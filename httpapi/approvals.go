package httpapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/approvals"
	"github.com/disburse/disburse/idempotency"
)

// Four-eyes approval of a submit (docs/api.md section 4.3): the list and
// one approval, and the two decisions. A submit that requests an approval
// answers 202 (submitBatch, batches.go).

type approvalJSON struct {
	ID              string                  `json:"id"`
	BatchID         string                  `json:"batchId"`
	Status          disburse.ApprovalStatus `json:"status"`
	RequestedBy     actorJSON               `json:"requestedBy"`
	RequestedAt     dateTime                `json:"requestedAt"`
	PaymentsCount   int64                   `json:"paymentsCount"`
	PaymentsAmount  disburse.Money          `json:"paymentsAmount"`
	ReferralsAmount disburse.Money          `json:"referralsAmount"`
	DecidedBy       *actorJSON              `json:"decidedBy,omitempty"`
	DecidedAt       dateTime                `json:"decidedAt,omitzero"`
	Comment         string                  `json:"comment,omitempty"`
}

// approvalAnswerJSON is the answer of a submit that requested an approval
// (its batch left out: it is the DRAFT batch the client submitted), and
// of a decision, with the batch as the decision left it.
type approvalAnswerJSON struct {
	Approval approvalJSON `json:"approval"`
	Batch    *batchJSON   `json:"batch,omitempty"`
}

func toActor(a disburse.Actor) actorJSON {
	return actorJSON{Type: a.Type, ID: orNull(a.ID), Name: a.Name}
}

func toApproval(a disburse.Approval) approvalJSON {
	out := approvalJSON{ID: a.ID, BatchID: a.BatchID, Status: a.Status, RequestedBy: toActor(a.RequestedBy),
		RequestedAt: dateTime(a.RequestedAt), PaymentsCount: a.PaymentsCount, PaymentsAmount: a.PaymentsAmount,
		ReferralsAmount: a.ReferralsAmount, DecidedAt: dateTime(a.DecidedAt), Comment: a.Comment}
	if a.Status != disburse.ApprovalPending {
		d := toActor(a.DecidedBy)
		out.DecidedBy = &d
	}
	return out
}

// toDecision is a decision's answer: the approval and its batch.
func toDecision(a disburse.Approval, b disburse.Batch) approvalAnswerJSON {
	batch := toBatch(b)
	return approvalAnswerJSON{Approval: toApproval(a), Batch: &batch}
}

// approvalRequested is the 202 of a submit that requested an approval,
// with the approval's place (the handler's and its renderer's).
func approvalRequested(a disburse.Approval) (idempotency.Answer, bool) {
	return jsonAnswer(http.StatusAccepted, approvalAnswerJSON{Approval: toApproval(a)}, "Location", "/approvals/"+a.ID)
}

func (s *server) listApprovals(w http.ResponseWriter, r *http.Request, orgID string) error {
	q := r.URL.Query()
	aq := approvals.Query{Status: q.Get("status"), Skip: q.Get("skip"), Take: q.Get("take")}
	k, err := keysetOf(r, "approvals", aq.Status)
	if err != nil {
		return err
	}
	if k != nil {
		lq := k.query(disburse.ListQuery{})
		aq.Skip, aq.Take, aq.Keyset, aq.After = lq.Skip, lq.Take, lq.Keyset, lq.After
	}
	list, err := approvals.List(r.Context(), s.svc.Store, orgID, aq)
	if err != nil {
		return err
	}
	if k != nil {
		return writePage(w, k, list, func(a disburse.Approval) string { return a.ID }, toApproval)
	}
	return writeJSON(w, http.StatusOK, toList(list, toApproval))
}

func (s *server) getApproval(w http.ResponseWriter, r *http.Request, orgID string) error {
	a, err := approvals.Get(r.Context(), s.svc.Store, orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toApproval(a))
}

// approve runs the batch's submit (docs/api.md section 4.3). Too little
// float rejects the approval, which commits, and answers the submit's
// 422; decisionAnswer makes either answer, here and in its renderer.
func (s *server) approve(w http.ResponseWriter, r *http.Request, orgID string) error {
	comment, err := decisionComment(r)
	if err != nil {
		return err
	}
	a, b, err := s.svc.Approve(r.Context(), orgID, r.PathValue("id"), comment)
	if err != nil && a.Refusal == nil {
		return err
	}
	answer, ok := decisionAnswer(a, b)
	return writeAnswer(w, answer, ok)
}

func (s *server) reject(w http.ResponseWriter, r *http.Request, orgID string) error {
	comment, err := decisionComment(r)
	if err != nil {
		return err
	}
	a, b, err := s.svc.Reject(r.Context(), orgID, r.PathValue("id"), comment)
	if err != nil {
		return err
	}
	answer, ok := decisionAnswer(a, b)
	return writeAnswer(w, answer, ok)
}

// decisionAnswer is a decision's answer: 200 with the approval and its
// batch, or, for an approval the float check rejected, the submit's problem.
func decisionAnswer(a disburse.Approval, b disburse.Batch) (idempotency.Answer, bool) {
	if e := a.Refusal; e != nil {
		body, err := json.Marshal(problemOf(e, statusOf[e.Code]).filled())
		if err != nil {
			return idempotency.Answer{}, false
		}
		return idempotency.Answer{Status: statusOf[e.Code], Body: body,
			Header: map[string]string{"Content-Type": "application/problem+json", "Cache-Control": "no-store"}}, true
	}
	return jsonAnswer(http.StatusOK, toDecision(a, b))
}

// writeAnswer writes an answer made as a renderer makes it.
func writeAnswer(w http.ResponseWriter, a idempotency.Answer, ok bool) error {
	if !ok {
		return disburse.Errorf(disburse.CodeInternal, "the answer could not be made")
	}
	for k, v := range a.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body)
	return nil
}

// decisionComment reads the optional body {"comment": "..."}: none, or
// one of only whitespace, is no comment.
func decisionComment(r *http.Request) (string, error) {
	body, err := bodyBytes(r)
	if err != nil || len(bytes.TrimSpace(body)) == 0 {
		return "", err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req decisionRequest
	if err := decode(r, &req); err != nil {
		return "", err
	}
	return req.Comment, nil
}

// ApprovalEvent is the body of an approval's event.
func (WebhookRenderer) ApprovalEvent(version string, t disburse.EventType, at time.Time, a disburse.Approval) ([]byte, error) {
	return inVersion(version)(json.Marshal(eventJSON{Type: t, Timestamp: dateTime(at), Data: toApproval(a)}))
}
