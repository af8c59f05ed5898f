package httpapi

import (
	"net/http"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
)

// The batch routes (docs/api.md section 4). Path ids and query values go to
// the domain as sent: it answers 404 for a malformed id and 400 for a bad
// query value.

func (s *server) createBatch(w http.ResponseWriter, r *http.Request, orgID string) error {
	var in disburse.BatchInput
	if err := decode(r, &in); err != nil {
		return err
	}
	b, err := s.svc.CreateBatch(r.Context(), orgID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/batches/"+b.ID)
	return writeJSON(w, http.StatusCreated, toBatch(b))
}

func (s *server) listBatches(w http.ResponseWriter, r *http.Request, orgID string) error {
	q := listQuery(r)
	k, err := keysetOf(r, "batches", q.StatusCode, q.ExternalID)
	if err != nil {
		return err
	}
	if k != nil {
		q = k.query(q)
	}
	list, err := lists.Batches(r.Context(), s.svc, orgID, q)
	if err != nil {
		return err
	}
	if k != nil {
		return writePage(w, k, list, func(b disburse.Batch) string { return b.ID }, toBatch)
	}
	return writeJSON(w, http.StatusOK, toList(list, toBatch))
}

// listQuery is the raw query of a list call; the domain validates it.
func listQuery(r *http.Request) disburse.ListQuery {
	q := r.URL.Query()
	return disburse.ListQuery{StatusCode: q.Get("statusCode"), ExternalID: q.Get("externalId"), Skip: q.Get("skip"), Take: q.Get("take")}
}

func batchStatusCodes(w http.ResponseWriter, _ *http.Request, _ string) error {
	return writeJSON(w, http.StatusOK, disburse.BatchStatuses())
}

func (s *server) updateBatch(w http.ResponseWriter, r *http.Request, orgID string) error {
	var in disburse.BatchInput
	if err := decode(r, &in); err != nil {
		return err
	}
	in.AccountID = "" // a batch keeps the account it was created with
	b, err := s.svc.UpdateBatch(r.Context(), orgID, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toBatch(b))
}

func (s *server) listPayments(w http.ResponseWriter, r *http.Request, orgID string) error {
	q := listQuery(r)
	k, err := keysetOf(r, "payments", r.PathValue("id"), q.StatusCode)
	if err != nil {
		return err
	}
	if k != nil {
		q = k.query(q)
	}
	list, err := lists.Payments(r.Context(), s.svc, orgID, r.PathValue("id"), q)
	if err != nil {
		return err
	}
	if k != nil {
		return writePage(w, k, list, func(p disburse.Payment) string { return p.ID }, toPayment)
	}
	return writeJSON(w, http.StatusOK, toPayments(list))
}

// addPayments answers with the batch and the payments just added (docs/api.md section 4.1).
func (s *server) addPayments(w http.ResponseWriter, r *http.Request, orgID string) error {
	var in disburse.AddPaymentsInput
	if err := decode(r, &in); err != nil {
		return err
	}
	if _, wrong := in.WrongTypes[disburse.FieldClearExisting]; since20261201(r) && in.ClearExisting == nil && !wrong {
		in.ClearExisting = new(bool) // optional in 2026-12-01, default false (docs/versioning.md)
	}
	b, added, err := s.svc.AddPayments(r.Context(), orgID, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	return writeBatchWithPayments(w, b, onePage(added))
}

// submitBatch answers with every non-deleted payment and its new status,
// read a page at a time once the submit has committed: the submit itself
// computes them in the database and holds none (docs/benchmarks.md, "The
// submit"). A batch at or above its organisation's approval threshold is
// not paid: the answer is 202 with the approval requested (docs/api.md
// section 4.3). It takes no body: one sent is ignored.
func (s *server) submitBatch(w http.ResponseWriter, r *http.Request, orgID string) error {
	start := time.Now()
	sub, err := s.svc.SubmitWatched(r.Context(), orgID, r.PathValue("id"), nil)
	if err != nil {
		return err
	}
	if sub.Approval != nil {
		answer, ok := approvalRequested(*sub.Approval)
		return writeAnswer(w, answer, ok)
	}
	b := sub.Batch
	s.metrics.observeSubmit(b.Summary.PaymentsCount, start)
	return writeBatchWithPayments(w, b, func(visit func([]disburse.Payment) error) error {
		return s.svc.PaymentPages(r.Context(), orgID, b.ID, visit)
	})
}

func (s *server) cancelBatch(w http.ResponseWriter, r *http.Request, orgID string) error {
	b, err := s.svc.Cancel(r.Context(), orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toBatch(b))
}
