package disburse

import "context"

// Scope is the organisation a portal user may see: their own, or every
// organisation ("") for an operator.
func (u PortalUser) Scope() string {
	if u.Role == RoleOperator {
		return ""
	}
	return u.OrganisationID
}

// inScope reports whether a row of organisationID is within scope.
func inScope(scope, organisationID string) bool { return scope == "" || scope == organisationID }

// ScopedBatch returns the batch id when it is within scope; else, as for a
// missing one, not found.
func (s *Service) ScopedBatch(ctx context.Context, scope, id string) (Batch, error) {
	if !ValidID(id) {
		return Batch{}, notFound("batch")
	}
	return read(ctx, s.Store, func(tx Tx) (Batch, error) {
		b, err := tx.Batch(ctx, id)
		if err != nil {
			return Batch{}, orNotFound(err, "batch")
		}
		if !inScope(scope, b.OrganisationID) {
			return Batch{}, notFound("batch")
		}
		return b, nil
	})
}

// ScopedPayment returns the payment id when it is within scope.
func (s *Service) ScopedPayment(ctx context.Context, scope, id string) (Payment, error) {
	if !ValidID(id) {
		return Payment{}, notFound("payment")
	}
	return read(ctx, s.Store, func(tx Tx) (Payment, error) {
		p, err := tx.Payment(ctx, id)
		if err != nil {
			return Payment{}, orNotFound(err, "payment")
		}
		if !inScope(scope, p.OrganisationID) {
			return Payment{}, notFound("payment")
		}
		return p, nil
	})
}

// PaymentsPage lists up to limit of a batch's payments after the payment
// after (a cursor, never an offset), the batch first checked within scope.
func (s *Service) PaymentsPage(ctx context.Context, scope, batchID, after string, limit int) ([]Payment, error) {
	if _, err := s.ScopedBatch(ctx, scope, batchID); err != nil {
		return nil, err
	}
	if after != "" && !ValidID(after) {
		return nil, Invalid("After", after, "after must be a payment id")
	}
	return read(ctx, s.Store, func(tx Tx) ([]Payment, error) { return tx.PaymentsAfter(ctx, batchID, after, limit) })
}

// AllBatches lists batches across organisations for the operator, or an
// organisation's own for its users (scope), narrowed by f.
func (s *Service) AllBatches(ctx context.Context, scope string, f PortalBatchFilter) ([]Batch, error) {
	if scope != "" {
		f.OrganisationID = scope
	}
	if f.OrganisationID != "" && !ValidID(f.OrganisationID) {
		return nil, Invalid("Organisation", f.OrganisationID, "organisation must be an organisation id")
	}
	if f.Before != "" && !ValidID(f.Before) {
		return nil, Invalid("Before", f.Before, "before must be a batch id")
	}
	if f.Status != "" && !validBatchStatus(f.Status) {
		return nil, Invalid("StatusCode", string(f.Status), "statusCode must be DRAFT, OPEN, CLOSED or CANCELLED")
	}
	return read(ctx, s.Store, func(tx Tx) ([]Batch, error) { return tx.AllBatches(ctx, f) })
}

func validBatchStatus(st BatchStatus) bool {
	for _, v := range BatchStatuses() {
		if v == st {
			return true
		}
	}
	return false
}

// OrganisationSummaries lists organisations with their float and held
// totals, those whose name contains search.
func (s *Service) OrganisationSummaries(ctx context.Context, search string, limit int) ([]OrganisationSummary, error) {
	if !ValidText(search) {
		return nil, Invalid("Search", search, textMessage("search"))
	}
	return read(ctx, s.Store, func(tx Tx) ([]OrganisationSummary, error) { return tx.OrganisationSummaries(ctx, search, limit) })
}

// APIKeys lists an organisation's API keys, newest first.
func (s *Service) APIKeys(ctx context.Context, organisationID string) ([]APIKey, error) {
	return read(ctx, s.Store, func(tx Tx) ([]APIKey, error) { return tx.APIKeys(ctx, organisationID) })
}

// ScopedAPIKey returns the key id when it is within scope.
func (s *Service) ScopedAPIKey(ctx context.Context, scope, id string) (APIKey, error) {
	if !ValidID(id) {
		return APIKey{}, notFound("API key")
	}
	return read(ctx, s.Store, func(tx Tx) (APIKey, error) {
		k, err := tx.APIKey(ctx, id)
		if err != nil {
			return APIKey{}, orNotFound(err, "API key")
		}
		if !inScope(scope, k.OrganisationID) {
			return APIKey{}, notFound("API key")
		}
		return k, nil
	})
}

// AccountOrganisation returns the organisation of a payout account.
func (s *Service) AccountOrganisation(ctx context.Context, id string) (string, error) {
	if !ValidID(id) {
		return "", notFound("account")
	}
	return read(ctx, s.Store, func(tx Tx) (string, error) {
		a, err := tx.Account(ctx, id)
		if err != nil || a.Kind != AccountPayout {
			return "", notFound("account")
		}
		return a.OrganisationID, nil
	})
}
