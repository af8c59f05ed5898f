package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// bearerToken returns the token of an "Authorization: Bearer <token>" header.
// The scheme is case-insensitive (RFC 9110 section 11.1).
func bearerToken(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// org guards an organisation route: the access token names the
// organisation, which the handler receives as an argument, never through
// the context, and its role must permit the role the route table names
// for the route (docs/api.md section 3.1), else 403 before anything is
// read or changed. The operator's token is no access token, so it gets
// 401 here.
func (s *server) org(h orgHandlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		need, err := s.need(r)
		if err != nil {
			return err
		}
		token, ok := bearerToken(r)
		if !ok {
			return auth.ErrUnauthorized
		}
		c, err := s.authenticate(w, r, token)
		if err != nil {
			return err
		}
		adoptOrganisation(r, c.APIVersion)
		if err := c.Roles.Permit(need); err != nil {
			return err
		}
		return h(w, r.WithContext(disburse.WithActor(r.Context(), c.Actor)), c.OrganisationID)
	}
}

// authenticate is the organisation token's check, with its budgets: a
// token that fails spends the client address's budget, one that passes
// its organisation's (ratelimit.go), whatever its role.
func (s *server) authenticate(w http.ResponseWriter, r *http.Request, token string) (auth.Caller, error) {
	c, err := s.auth.Authenticate(r.Context(), token)
	if disburse.ErrorCode(err) == disburse.CodeUnauthorized {
		s.tokenFailed(w, r, token)
	}
	if err != nil {
		return auth.Caller{}, err
	}
	return c, s.tokenPassed(w, r, token, c.OrganisationID)
}

// admin guards an operator route (docs/api.md section 7): the bearer token must
// be a live operator token or the bootstrap token (--admin-token), which
// becomes the actor of the request's changes.
func (s *server) admin(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, ok := bearerToken(r)
		if !ok {
			return auth.ErrUnauthorized
		}
		actor, err := s.operators.Authenticate(r.Context(), token)
		if disburse.ErrorCode(err) == disburse.CodeUnauthorized {
			s.tokenFailed(w, r, token)
		}
		if err != nil {
			return err
		}
		return h(w, r.WithContext(disburse.WithActor(r.Context(), actor)))
	}
}

// getToken exchanges an API key for an access token (docs/api.md section 3).
func (s *server) getToken(w http.ResponseWriter, r *http.Request) error {
	var req tokenRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	token, ttl, err := s.auth.IssueToken(r.Context(), req.APIKey)
	if err != nil {
		return err
	}
	// The new token's organisation, noted now, lets its first request
	// spend the organisation's budget rather than wait on the address's,
	// which this getToken has just spent (ratelimit.go).
	if c, err := s.auth.Authenticate(r.Context(), token); err == nil {
		s.limits.orgs.remember(token, c.OrganisationID)
	}
	return writeJSON(w, http.StatusOK, tokenJSON{AccessToken: token, TokenType: "Bearer", ExpiresIn: int64(ttl / time.Second)})
}
