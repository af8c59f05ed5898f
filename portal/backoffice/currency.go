package backoffice

import (
	"context"
	"errors"

	"github.com/disburse/disburse"
)

// Currencies returns the currency of each organisation of ids, by id, for
// the amounts of a page whose rows are of several organisations (every
// amount is shown with its currency: docs/portal.md, "Amounts"). An id
// that names no organisation is left out.
func (s *Service) Currencies(ctx context.Context, ids ...string) (map[string]string, error) {
	return read(ctx, s.Store, func(tx Tx) (map[string]string, error) {
		out := make(map[string]string)
		for _, id := range ids {
			if _, ok := out[id]; ok || !disburse.ValidID(id) {
				continue
			}
			o, err := tx.Organisation(ctx, id)
			if errors.Is(err, disburse.ErrNotFound) {
				continue
			}
			if err != nil {
				return nil, err
			}
			out[id] = o.Currency
		}
		return out, nil
	})
}
