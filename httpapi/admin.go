package httpapi

import (
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/organisations"
)

// The operator API (docs/api.md section 7): for the service's operator, never
// for organisations; admin in auth.go guards every route here.

func (s *server) createOrganisation(w http.ResponseWriter, r *http.Request) error {
	var req organisationRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	org, accounts, err := organisations.Create(r.Context(), s.svc, organisations.NewOrganisation{
		Name: req.Name, Currency: req.Currency, ReferralsEnabled: req.ReferralsEnabled, ReversalPeriodDays: req.ReversalPeriodDays,
		APIVersion: req.APIVersion,
		Sandbox:    req.Sandbox,
	})

	if err != nil {
		return err
	}
	w.Header().Set("Location", "/admin/organisations/"+org.ID)
	// Without apiVersion in any version: the answer is the one its
	// Idempotency-Key replays, which is rendered without the request.
	return writeJSON(w, http.StatusCreated, toOrganisation(org, accounts))
}

func (s *server) getOrganisation(w http.ResponseWriter, r *http.Request) error {
	org, accounts, err := organisations.Get(r.Context(), s.svc, r.PathValue("id"))
	if err != nil {
		return err
	}
	j := toOrganisation(org, accounts)
	j.APIVersion = withAPIVersion(r, org.APIVersion)
	return writeJSON(w, http.StatusOK, j)
}

func (s *server) updateSettings(w http.ResponseWriter, r *http.Request) error {
	var req settingsRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	in, err := req.settings()
	if err != nil {
		return err
	}
	org, accounts, err := organisations.UpdateSettings(r.Context(), s.svc, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	j := toOrganisation(org, accounts)
	j.APIVersion = withAPIVersion(r, org.APIVersion)
	return writeJSON(w, http.StatusOK, j)
}

func (s *server) createAccount(w http.ResponseWriter, r *http.Request) error {
	var req accountRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	a, err := organisations.CreateAccount(r.Context(), s.svc, r.PathValue("id"), req.Name)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toAccount(a))
}

// createAPIKey shows the key once; only its hash is kept (docs/api.md
// section 3). The body is optional: without it, or without a role, the
// key is an admin's (section 3.1).
func (s *server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var req apiKeyRequest
	if err := decodeOptional(r, &req); err != nil {
		return err
	}
	key, _, err := s.auth.CreateAPIKeyBy(r.Context(), disburse.ActorOf(r.Context()), r.PathValue("id"), auth.Role(req.Role))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toAPIKey(key))
}

func (s *server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	if err := s.auth.RevokeAPIKey(r.Context(), r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deposit answers with the ledger transfer funding → float.
func (s *server) deposit(w http.ResponseWriter, r *http.Request) error {
	var req depositRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	t, err := s.svc.Deposit(r.Context(), r.PathValue("id"), string(req.Amount), req.Reference)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toTransfer(t))
}

// registerMember answers 201 with a new member, whose pending payments it
// has settled, or 200 with the member already registered, unchanged:
// registration is idempotent (docs/decisions.md).
func (s *server) registerMember(w http.ResponseWriter, r *http.Request) error {
	var req memberRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	m, created, err := s.svc.RegisterMember(r.Context(), disburse.Member{
		Msisdn: req.Msisdn, Firstname: req.Firstname, Lastname: req.Lastname, AppInstalled: req.AppInstalled,
	})
	if err != nil {
		return err
	}
	return writeJSON(w, memberStatus(created), toMember(m))
}

func (s *server) statement(w http.ResponseWriter, r *http.Request) error {
	st, err := s.svc.Statement(r.Context(), r.PathValue("msisdn"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toStatement(st))
}

func (s *server) notifications(w http.ResponseWriter, r *http.Request) error {
	list, err := lists.Notifications(r.Context(), s.svc, r.URL.Query().Get("recipient"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(list, toNotification))
}

// checkLedger audits the ledger; problems is always an array.
func (s *server) checkLedger(w http.ResponseWriter, r *http.Request) error {
	report, err := s.svc.CheckLedger(r.Context())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, ledgerJSON{OK: report.OK, Problems: append([]string{}, report.Problems...)})
}
