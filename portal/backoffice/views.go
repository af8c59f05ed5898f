package backoffice

import (
	"context"
	"slices"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/text"
)

// Scope is the organisation a portal user may see: their own, or every
// organisation ("") for an operator.
func (u User) Scope() string {
	if u.Role == RoleOperator {
		return ""
	}
	return u.OrganisationID
}

// inScope reports whether a row of organisationID is within scope.
func inScope(scope, organisationID string) bool { return scope == "" || scope == organisationID }

// scopedRow reads the row id with get, in tx, and returns it when its
// organisation (org) is within scope; else, as for a missing one, not
// found (what names it).
func scopedRow[T any](ctx context.Context, tx Tx, scope, id, what string, get func(context.Context, string) (T, error), org func(T) string) (T, error) {
	var zero T
	if !disburse.ValidID(id) {
		return zero, disburse.NotFound(what)
	}
	v, err := get(ctx, id)
	if err != nil {
		return zero, disburse.OrNotFound(err, what)
	}
	if !inScope(scope, org(v)) {
		return zero, disburse.NotFound(what)
	}
	return v, nil
}

func batchOrganisation(b disburse.Batch) string     { return b.OrganisationID }
func paymentOrganisation(p disburse.Payment) string { return p.OrganisationID }

// ScopedBatch returns the batch id when it is within scope; else, as for a
// missing one, not found.
func (s *Service) ScopedBatch(ctx context.Context, scope, id string) (disburse.Batch, error) {
	return read(ctx, s.Store, func(tx Tx) (disburse.Batch, error) {
		return scopedRow(ctx, tx, scope, id, "batch", tx.Batch, batchOrganisation)
	})
}

// ScopedPayment returns the payment id when it is within scope.
func (s *Service) ScopedPayment(ctx context.Context, scope, id string) (disburse.Payment, error) {
	return read(ctx, s.Store, func(tx Tx) (disburse.Payment, error) {
		return scopedRow(ctx, tx, scope, id, "payment", tx.Payment, paymentOrganisation)
	})
}

// PaymentsPage lists up to limit of a batch's payments after the payment
// after (a cursor, never an offset), the batch first checked within scope.
func (s *Service) PaymentsPage(ctx context.Context, scope, batchID, after string, limit int) ([]disburse.Payment, error) {
	if _, err := s.ScopedBatch(ctx, scope, batchID); err != nil {
		return nil, err
	}
	if after != "" && !disburse.ValidID(after) {
		return nil, disburse.Invalid("After", after, "after must be a payment id")
	}
	return read(ctx, s.Store, func(tx Tx) ([]disburse.Payment, error) { return tx.PaymentsAfter(ctx, batchID, after, limit) })
}

// AllBatches lists batches across organisations for the operator, or an
// organisation's own for its users (scope), narrowed by f.
func (s *Service) AllBatches(ctx context.Context, scope string, f BatchFilter) ([]disburse.Batch, error) {
	if scope != "" {
		f.OrganisationID = scope
	}
	if f.OrganisationID != "" && !disburse.ValidID(f.OrganisationID) {
		return nil, disburse.Invalid("Organisation", f.OrganisationID, "organisation must be an organisation id")
	}
	if f.Before != "" && !disburse.ValidID(f.Before) {
		return nil, disburse.Invalid("Before", f.Before, "before must be a batch id")
	}
	if f.Status != "" && !validBatchStatus(f.Status) {
		return nil, disburse.Invalid("StatusCode", string(f.Status), "statusCode must be DRAFT, OPEN, CLOSED or CANCELLED")
	}
	return read(ctx, s.Store, func(tx Tx) ([]disburse.Batch, error) { return tx.AllBatches(ctx, f) })
}

func validBatchStatus(st disburse.BatchStatus) bool {
	for _, v := range disburse.BatchStatuses() {
		if v == st {
			return true
		}
	}
	return false
}

// OrganisationSummaries lists organisations with their float and held
// totals, those whose name contains search.
func (s *Service) OrganisationSummaries(ctx context.Context, search string, limit int) ([]OrganisationSummary, error) {
	if !text.Valid(search) {
		return nil, disburse.Invalid("Search", search, disburse.TextMessage("search"))
	}
	return read(ctx, s.Store, func(tx Tx) ([]OrganisationSummary, error) { return tx.OrganisationSummaries(ctx, search, limit) })
}

// APIKeys lists an organisation's API keys, newest first.
func (s *Service) APIKeys(ctx context.Context, organisationID string) ([]auth.APIKey, error) {
	return read(ctx, s.Store, func(tx Tx) ([]auth.APIKey, error) { return tx.APIKeys(ctx, organisationID) })
}

// ScopedAPIKey returns the key id when it is within scope.
func (s *Service) ScopedAPIKey(ctx context.Context, scope, id string) (auth.APIKey, error) {
	return read(ctx, s.Store, func(tx Tx) (auth.APIKey, error) {
		return scopedRow(ctx, tx, scope, id, "API key", tx.APIKey, func(k auth.APIKey) string { return k.OrganisationID })
	})
}

// AccountOrganisation returns the organisation of a payout account.
func (s *Service) AccountOrganisation(ctx context.Context, id string) (string, error) {
	if !disburse.ValidID(id) {
		return "", disburse.NotFound("account")
	}
	return read(ctx, s.Store, func(tx Tx) (string, error) {
		a, err := tx.Account(ctx, id)
		if err != nil || a.Kind != disburse.AccountPayout {
			return "", disburse.NotFound("account")
		}
		return a.OrganisationID, nil
	})
}

// LegTransfer is one transfer of a payment's leg with both its accounts,
// for the portal's payment page.
type LegTransfer struct {
	disburse.Transfer
	From, To disburse.Account
}

// ScopedPaymentTransfers returns the payment id, when it is within scope,
// and the transfers of its legs, oldest first, in one snapshot.
func (s *Service) ScopedPaymentTransfers(ctx context.Context, scope, id string) (disburse.Payment, []LegTransfer, error) {
	var p disburse.Payment
	var out []LegTransfer
	err := s.Store.ReadPortal(ctx, func(tx Tx) error {
		var err error
		if p, err = scopedRow(ctx, tx, scope, id, "payment", tx.Payment, paymentOrganisation); err != nil {
			return err
		}
		ts, err := tx.PaymentTransfers(ctx, id)
		if err != nil {
			return err
		}
		accounts := map[string]disburse.Account{} // a payment's legs move between a few accounts
		account := func(id string) (disburse.Account, error) {
			if a, ok := accounts[id]; ok {
				return a, nil
			}
			a, err := tx.Account(ctx, id)
			accounts[id] = a
			return a, err
		}
		out = make([]LegTransfer, len(ts))
		for i, t := range ts {
			out[i].Transfer = t
			if out[i].From, err = account(t.FromAccountID); err != nil {
				return err
			}
			if out[i].To, err = account(t.ToAccountID); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return disburse.Payment{}, nil, err
	}
	return p, out, nil
}

// NotificationsPage lists the outbox narrowed by f, a page at a time from
// the cursor f.After (Tx.NotificationsPage says in which order).
func (s *Service) NotificationsPage(ctx context.Context, f NotificationFilter) ([]disburse.Notification, error) {
	var v disburse.Validation
	if !text.Valid(f.Recipient) {
		v.Add(-1, "Recipient", f.Recipient, disburse.TextMessage("recipient"))
	}
	if f.Status != "" && !slices.Contains(disburse.NotificationStatuses(), f.Status) {
		v.Add(-1, "Status", string(f.Status), "status must be PENDING, SENT or FAILED")
	}
	if f.Channel != "" && !slices.Contains(disburse.Channels(), f.Channel) {
		v.Add(-1, "Channel", string(f.Channel), "channel must be SMS or PUSH")
	}
	if f.After != "" && !disburse.ValidID(f.After) {
		v.Add(-1, "After", f.After, "after must be a notification id")
	}
	if err := v.Err(); err != nil {
		return nil, err
	}
	list, err := read(ctx, s.Store, func(tx Tx) ([]disburse.Notification, error) { return tx.NotificationsPage(ctx, f) })
	return list, disburse.OrNotFound(err, "notification") // a cursor no notification has
}
