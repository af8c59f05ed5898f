package httpapi

import (
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// getAuthenticatedBatch is GET /batches/{id}. It authenticates itself, not
// through s.org: package auth reads the token and the batch in one statement
// (auth.Service.AuthenticatedBatch), the cheapest authenticated read there is,
// for the call clients poll while a batch settles. The credentials, their
// failures, their budgets and the role the route table names are s.org's.
func (s *server) getAuthenticatedBatch(w http.ResponseWriter, r *http.Request) error {
	need, err := s.need(r)
	if err != nil {
		return err
	}
	token, ok := bearerToken(r)
	if !ok {
		return auth.ErrUnauthorized
	}
	if spent, _ := r.Context().Value(orgSpentKey{}).(bool); !spent {
		// A token not seen yet: its organisation, and so its budget, is
		// learnt first, once.
		if _, err := s.authenticate(w, r, token); err != nil {
			return err
		}
	}
	b, c, err := s.auth.AuthenticatedBatch(r.Context(), token, r.PathValue("id"), need)
	if disburse.ErrorCode(err) == disburse.CodeUnauthorized {
		s.tokenFailed(w, r, token)
	}
	if err != nil {
		return err
	}
	adoptOrganisation(r, c.APIVersion)
	return writeJSON(w, http.StatusOK, toBatch(b))
}
