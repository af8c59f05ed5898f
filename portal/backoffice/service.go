// Package backoffice holds the management portal's own use cases, beside
// the payouts: its users and their sign-in sessions, the views of the
// domain's rows scoped to what a user may see, and the progress of CSV
// uploads. It has its own transaction port (Tx) and store (Store), which
// the SQL store implements; the payout domain (package disburse) never
// imports it. The pages themselves are package portal.
package backoffice

import (
	"context"
	"time"

	"github.com/disburse/disburse/internal/txvalue"
)

// Service holds the portal's use cases over a Store.
type Service struct {
	// Store is the back office's store.
	Store Store
	// Clock is injected so tests move time instead of sleeping; it should
	// be the same clock as the disburse.Service the portal uses.
	Clock func() time.Time
	// PasswordCost is the cost of the hashes of the passwords it sets;
	// zero is OWASP's recommendation, which the service always uses.
	// Tests that sign users in by the hundred set a cheaper one: a hash
	// keeps its cost, so checking it costs what making it did.
	PasswordCost PasswordCost
}

// NewService returns a Service on store with the real clock.
func NewService(store Store) *Service {
	return &Service{Store: store, Clock: time.Now}
}

// purgeBatchSize is how many rows a purge deletes in one transaction.
const purgeBatchSize = 1000

// now is the time of one use case: read once, so a transaction sees one clock.
// Truncated to microseconds, the precision the stores keep.
func (s *Service) now() time.Time {
	return s.Clock().UTC().Truncate(time.Microsecond)
}

// read runs fn in one read transaction of s and returns its value.
func read[T any](ctx context.Context, s Store, fn func(Tx) (T, error)) (T, error) {
	return txvalue.Read(ctx, s.ReadPortal, fn)
}
