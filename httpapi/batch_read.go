package httpapi

import (
	"net/http"

	"github.com/disburse/disburse"
)

// getAuthenticatedBatch is GET /batches/{id}. It authenticates itself, not
// through s.org: the domain reads the token and the batch in one statement
// (Service.AuthenticatedBatch), the cheapest authenticated read there is,
// for the call clients poll while a batch settles. The credentials and
// their failures are s.org's.
func (s *server) getAuthenticatedBatch(w http.ResponseWriter, r *http.Request) error {
	token, ok := bearerToken(r)
	if !ok {
		return disburse.ErrUnauthorized
	}
	b, err := s.svc.AuthenticatedBatch(r.Context(), token, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toBatch(b))
}
