package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/disburse/disburse"
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

// org guards an organisation route: the access token names the organisation,
// which the handler receives as an argument, never through the context.
// The operator's token is no access token, so it gets 401 here.
func (s *server) org(h orgHandlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, ok := bearerToken(r)
		if !ok {
			return disburse.ErrUnauthorized
		}
		orgID, actor, err := s.authenticate(w, r, token)
		if err != nil {
			return err
		}
		return h(w, r.WithContext(disburse.WithActor(r.Context(), actor)), orgID)
	}
}

// authenticate is the organisation token's check, with its budgets: a
// token that fails spends the client address's budget, one that passes
// its organisation's (ratelimit.go).
func (s *server) authenticate(w http.ResponseWriter, r *http.Request, token string) (string, disburse.Actor, error) {
	orgID, actor, err := s.svc.Authenticate(r.Context(), token)
	if disburse.ErrorCode(err) == disburse.CodeUnauthorized {
		s.tokenFailed(w, r, token)
	}
	if err != nil {
		return "", disburse.Actor{}, err
	}
	return orgID, actor, s.tokenPassed(w, r, token, orgID)
}

// admin guards an operator route (docs/api.md section 7): the bearer token must
// be a live operator token or the bootstrap token (--admin-token), which
// becomes the actor of the request's changes.
func (s *server) admin(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		token, ok := bearerToken(r)
		if !ok {
			return disburse.ErrUnauthorized
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
	token, ttl, err := s.svc.IssueToken(r.Context(), req.APIKey)
	if err != nil {
		return err
	}
	// The new token's organisation, noted now, lets its first request
	// spend the organisation's budget rather than wait on the address's,
	// which this getToken has just spent (ratelimit.go).
	if orgID, _, err := s.svc.Authenticate(r.Context(), token); err == nil {
		s.limits.orgs.remember(token, orgID)
	}
	return writeJSON(w, http.StatusOK, tokenJSON{AccessToken: token, TokenType: "Bearer", ExpiresIn: int64(ttl / time.Second)})
}
