package httpapi

import (
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// The payment, member and account routes of the organisation API (docs/api.md section 5).

func paymentStatusCodes(w http.ResponseWriter, _ *http.Request, _ string) error {
	return writeJSON(w, http.StatusOK, disburse.PaymentStatuses())
}

func (s *server) getPayment(w http.ResponseWriter, r *http.Request, orgID string) error {
	p, err := s.svc.Payment(r.Context(), orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toPayment(p))
}

// deletePayment answers with the payment, now DELETED.
func (s *server) deletePayment(w http.ResponseWriter, r *http.Request, orgID string) error {
	p, err := s.svc.DeletePayment(r.Context(), orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toPayment(p))
}

// memberExists is open to every organisation: membership is what decides
// whether a payment settles at once, so a payer may ask before paying.
func (s *server) memberExists(w http.ResponseWriter, r *http.Request, orgID string) error {
	msisdn := r.PathValue("msisdn")
	exists, err := s.svc.MemberExists(r.Context(), orgID, msisdn)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, memberExistsJSON{Msisdn: msisdn, Exists: exists})
}

func (s *server) listAccounts(w http.ResponseWriter, r *http.Request, orgID string) error {
	accounts, err := organisations.Accounts(r.Context(), s.svc, orgID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(accounts, toAccount))
}
