// Package notifications delivers the payee notifications the domain's use
// cases write in their money transactions (disburse.Notification, the
// outbox): it claims the due ones under a lease, sends each through a
// Notifier (package notify's providers), and records SENT, another attempt
// after a backoff, or FAILED after the last one (docs/api.md section 8). It
// imports the domain and is never imported by it; its store is a
// transaction port of its own, which whoever holds the concrete store hands
// over (sqlstore.Store.Notifications).
package notifications

import (
	"context"
	"log/slog"
	"time"

	"github.com/disburse/disburse"
)

// Notifier delivers one notification through a provider (SMS gateway, push
// service). An error means "try again later"; it never touches money. Send
// must return once ctx is done: delivery relies on it to bound how long a
// send holds its slot and its lease.
type Notifier interface {
	Send(ctx context.Context, n disburse.Notification) error
}

// Store is the delivery's persistence port: write transactions as the
// domain's Store runs them (retries), over the same database.
type Store interface {
	// Write runs fn in one write transaction and commits when fn returns
	// nil; fn may run again on a serialization failure.
	Write(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a transaction of the delivery can do with the outbox rows
// the money transactions wrote (disburse.Tx.InsertNotifications).
type Tx interface {
	// ClaimNotifications leases up to limit PENDING notifications that are due
	// at now and not leased by a live owner: sets LeaseOwner and LeaseUntil and
	// returns them. Rows locked by another transaction are skipped.
	ClaimNotifications(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]disburse.Notification, error)
	// UpdateNotifications writes the outcomes of delivery attempts in bulk
	// and clears their leases: each only while its LeaseOwner still holds
	// the lease. It returns how many it wrote; one it did not write was
	// taken over by another process (or no longer exists).
	UpdateNotifications(ctx context.Context, ns []disburse.Notification) (int, error)
	// ExtendNotificationLeases sets to until the lease of the notifications
	// ids names that owner holds and whose lease has not ended at now, and
	// returns the ids of those it renewed. A row another transaction has
	// locked is skipped, not waited for.
	ExtendNotificationLeases(ctx context.Context, owner string, ids []string, now, until time.Time) ([]string, error)
	// ReleaseNotifications clears the leases owner holds on the
	// notifications ids names, so another process can take them at once.
	ReleaseNotifications(ctx context.Context, owner string, ids []string) error
}

// Service delivers the outbox, above Store. The delivery worker calls it.
type Service struct {
	Store Store
	// Clock is the domain's clock (disburse.Service.Clock): tests move it.
	Clock func() time.Time
	Log   *slog.Logger
	// Meter counts attempts for the operator's metrics (meter.go); nil
	// counts nothing.
	Meter Meter
}

// New returns the delivery's Service over store, on the clock and the log
// of the domain's Service.
func New(store Store, core *disburse.Service) *Service {
	return &Service{Store: store, Clock: core.Clock, Log: core.Log}
}

// now is the time of one step: truncated to microseconds, the precision
// the stores keep.
func (s *Service) now() time.Time {
	return s.Clock().UTC().Truncate(time.Microsecond)
}
