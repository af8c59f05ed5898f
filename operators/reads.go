package operators

import (
	"context"
	"errors"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/text"
	"github.com/disburse/disburse/internal/txvalue"
)

// Page is a list in pages, newest first: NextCursor, when not empty, is
// the after of the next page (docs/api.md section 7, "Lists in pages").
type Page[T any] struct {
	Items      []T
	NextCursor string
}

// PageQuery is a page's query as the API received it: after a cursor,
// take of them (1 to 1000, default 1000, as every list of the API).
type PageQuery struct {
	After, Take string
}

// check validates q into v and returns how many to take.
func (q PageQuery) check(v *disburse.Validation) int {
	_, take := disburse.Paging(v, disburse.ListQuery{Take: q.Take})
	if q.After != "" && !disburse.ValidID(q.After) {
		v.Add(-1, "After", q.After, afterMessage)
	}
	return take
}

const afterMessage = "after must be the nextCursor of a previous page"

// page reads take+1 items with list and cuts them into a page; a cursor
// that names nothing is the same failure as a malformed one.
func page[T any](ctx context.Context, s *Service, q PageQuery, take int, id func(T) string, list func(Tx, int) ([]T, error)) (Page[T], error) {
	items, err := read(ctx, s, func(tx Tx) ([]T, error) { return list(tx, take+1) })
	if errors.Is(err, disburse.ErrNotFound) {
		return Page[T]{}, disburse.Invalid("After", q.After, afterMessage)
	}
	if err != nil {
		return Page[T]{}, err
	}
	p := Page[T]{Items: items}
	if len(items) > take {
		p.Items = items[:take]
		p.NextCursor = id(items[take-1])
	}
	return p, nil
}

// errNoStore is a read of a service made without a store.
var errNoStore = errors.New("operators: the service has no store")

// read runs fn in a read transaction of s's store.
func read[T any](ctx context.Context, s *Service, fn func(Tx) (T, error)) (T, error) {
	if s.store == nil {
		var zero T
		return zero, errNoStore
	}
	return txvalue.Read(ctx, s.store.ReadOperators, fn)
}

// Audit lists the audit log newest first: one organisation's when
// organisationID is not empty, one action's when action is not.
func (s *Service) Audit(ctx context.Context, organisationID, action string, q PageQuery) (Page[disburse.AuditEntry], error) {
	var v disburse.Validation
	take := q.check(&v)
	if organisationID != "" && !disburse.ValidID(organisationID) {
		v.Add(-1, "OrganisationId", organisationID, "organisationId must be an organisation's id")
	}
	if !text.Valid(action) || len(action) > 100 {
		v.Add(-1, "Action", action, "action must be text of at most 100 characters")
	}
	if err := v.Err(); err != nil {
		return Page[disburse.AuditEntry]{}, err
	}
	return page(ctx, s, q, take, func(e disburse.AuditEntry) string { return e.ID }, func(tx Tx, n int) ([]disburse.AuditEntry, error) {
		return tx.AuditEntries(ctx, AuditFilter{OrganisationID: organisationID, Action: action, After: q.After, Limit: n})
	})
}

// Organisations lists the organisations newest first.
func (s *Service) Organisations(ctx context.Context, q PageQuery) (Page[disburse.Organisation], error) {
	var v disburse.Validation
	take := q.check(&v)
	if err := v.Err(); err != nil {
		return Page[disburse.Organisation]{}, err
	}
	return page(ctx, s, q, take, func(o disburse.Organisation) string { return o.ID }, func(tx Tx, n int) ([]disburse.Organisation, error) {
		return tx.OrganisationsPage(ctx, q.After, n)
	})
}

// APIKeys lists an organisation's API keys, newest first, without their
// secrets (which are not kept) or hashes.
func (s *Service) APIKeys(ctx context.Context, organisationID string) ([]auth.APIKey, error) {
	if !disburse.ValidID(organisationID) {
		return nil, disburse.NotFound("organisation")
	}
	keys, err := read(ctx, s, func(tx Tx) ([]auth.APIKey, error) {
		if _, err := tx.Organisation(ctx, organisationID); err != nil {
			return nil, disburse.OrNotFound(err, "organisation")
		}
		return tx.APIKeys(ctx, organisationID)
	})
	for i := range keys {
		keys[i].Hash = ""
	}
	return keys, err
}
