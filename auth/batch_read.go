package auth

import (
	"context"
	"errors"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/secrets"
)

// AuthenticatedBatch is Authenticate, the check that the token's role
// permits need, then the domain's Service.Batch: in one statement when
// the token is good and the batch its organisation's. GET /batches/{id}
// is the call clients poll while a batch settles, and this halves its
// reads. Any other outcome takes the steps again, so a bad token is
// unauthorized and a missing batch not found exactly as on every other
// route.
func (s *Service) AuthenticatedBatch(ctx context.Context, token, id string, need Role) (disburse.Batch, Caller, error) {
	if token != "" && disburse.ValidID(id) {
		t, b, err := s.Store.TokenAndBatch(ctx, secrets.Hash(token), id)
		if err == nil {
			c, err := s.tokenCaller(t)
			if err != nil {
				return disburse.Batch{}, Caller{}, err
			}
			if err := c.Roles.Permit(need); err != nil {
				return disburse.Batch{}, Caller{}, err
			}
			if b.OrganisationID != c.OrganisationID { // cannot be: the statement joins on it
				return disburse.Batch{}, Caller{}, disburse.NotFound("batch")
			}
			return b, c, nil
		}
		if !errors.Is(err, disburse.ErrNotFound) {
			return disburse.Batch{}, Caller{}, err
		}
	}
	c, err := s.Authenticate(ctx, token)
	if err != nil {
		return disburse.Batch{}, Caller{}, err
	}
	if err := c.Roles.Permit(need); err != nil {
		return disburse.Batch{}, Caller{}, err
	}
	b, err := s.core.Batch(ctx, c.OrganisationID, id)
	return b, c, err
}
