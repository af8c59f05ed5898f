package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notifications"
)

const notificationColumns = `n.id, n.channel, n.recipient, n.message, n.status, n.attempts, n.next_attempt_at,
	n.lease_until, n.lease_owner, n.last_error, n.created_at, n.sent_at`

func scanNotification(r *sql.Rows) (disburse.Notification, error) {
	var n disburse.Notification
	err := r.Scan(&n.ID, &n.Channel, &n.Recipient, &n.Message, &n.Status, &n.Attempts, at(&n.NextAttemptAt),
		at(&n.LeaseUntil), &n.LeaseOwner, &n.LastError, at(&n.CreatedAt), at(&n.SentAt))
	return n, err
}

// InsertNotifications stores a zero NextAttemptAt as CreatedAt: a new
// notification is due at once, and the due index needs a value.
func (t *tx) InsertNotifications(ctx context.Context, ns []disburse.Notification) error {
	cols := []Column{
		IDCol("id", func(i int) string { return ns[i].ID }),
		TextCol("channel", func(i int) string { return string(ns[i].Channel) }),
		TextCol("recipient", func(i int) string { return ns[i].Recipient }),
		TextCol("message", func(i int) string { return ns[i].Message }),
		TextCol("status", func(i int) string { return string(ns[i].Status) }),
		IntCol("attempts", func(i int) int64 { return int64(ns[i].Attempts) }),
		TimeCol("next_attempt_at", func(i int) time.Time {
			if ns[i].NextAttemptAt.IsZero() {
				return ns[i].CreatedAt
			}
			return ns[i].NextAttemptAt
		}),
		TimeCol("lease_until", func(i int) time.Time { return ns[i].LeaseUntil }),
		TextCol("lease_owner", func(i int) string { return ns[i].LeaseOwner }),
		TextCol("last_error", func(i int) string { return ns[i].LastError }),
		TimeCol("created_at", func(i int) time.Time { return ns[i].CreatedAt }),
		TimeCol("sent_at", func(i int) time.Time { return ns[i].SentAt }),
	}
	return t.insertRows(ctx, "notifications", cols, len(ns))
}

// ClaimNotifications leases in one statement: the inner SELECT picks the
// due rows (skipping rows another transaction has locked, where the engine
// locks rows), the UPDATE leases them and returns them.
func (t *tx) ClaimNotifications(ctx context.Context, owner string, now, leaseUntil time.Time, n int) ([]disburse.Notification, error) {
	ns, err := list(ctx, t, "claim notifications", scanNotification,
		`UPDATE notifications SET lease_owner = ?, lease_until = ?
		WHERE id IN (
			SELECT id FROM notifications
			WHERE status = 'PENDING' AND next_attempt_at <= ? AND (lease_until IS NULL OR lease_until < ?)
			ORDER BY next_attempt_at, id LIMIT ?`+t.e.LockClause(true)+`)
		RETURNING `+strings.ReplaceAll(notificationColumns, "n.", ""),
		owner, micros(leaseUntil), micros(now), micros(now), n)
	// RETURNING has no order; hand them out as they fell due.
	slices.SortFunc(ns, func(a, b disburse.Notification) int {
		if c := a.NextAttemptAt.Compare(b.NextAttemptAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return ns, err
}

// UpdateNotifications writes every outcome in one statement per chunk,
// each row only while its LeaseOwner still holds the lease: a row another
// process has taken over is left as that process writes it, and is not
// counted. A zero NextAttemptAt keeps the stored one (a notification that is
// done needs no next attempt, but the column does).
func (t *tx) UpdateNotifications(ctx context.Context, ns []disburse.Notification) (int, error) {
	if len(ns) == 0 {
		return 0, nil
	}
	cols := []Column{
		IDCol("id", func(i int) string { return ns[i].ID }),
		TextCol("lease_owner", func(i int) string { return ns[i].LeaseOwner }),
		TextCol("status", func(i int) string { return string(ns[i].Status) }),
		IntCol("attempts", func(i int) int64 { return int64(ns[i].Attempts) }),
		TimeCol("next_attempt_at", func(i int) time.Time { return ns[i].NextAttemptAt }),
		TextCol("last_error", func(i int) string { return ns[i].LastError }),
		TimeCol("sent_at", func(i int) time.Time { return ns[i].SentAt }),
	}
	n, err := t.bulk(ctx, `UPDATE notifications
		SET status = r.status, attempts = r.attempts, next_attempt_at = COALESCE(r.next_attempt_at, notifications.next_attempt_at),
			last_error = r.last_error, sent_at = r.sent_at, lease_owner = '', lease_until = NULL
		FROM @rows AS r WHERE notifications.id = r.id AND notifications.lease_owner = r.lease_owner`, nil, len(ns), cols, nil)
	if err != nil {
		return int(n), fmt.Errorf("update notifications: %w", err)
	}
	return int(n), nil
}

// ExtendNotificationLeases names the rows, as ReleaseNotifications does.
func (t *tx) ExtendNotificationLeases(ctx context.Context, owner string, ids []string, now, until time.Time) ([]string, error) {
	renewed, err := t.extend(ctx, "notifications", owner, ids, now, until)
	if err != nil {
		return nil, fmt.Errorf("extend notification leases: %w", err)
	}
	return renewed, nil
}

// ReleaseNotifications names the rows: a release by owner alone would
// read every index entry the owner ever had, dead ones included until a
// vacuum, and one process keeps its owner name for its whole life.
func (t *tx) ReleaseNotifications(ctx context.Context, owner string, ids []string) error {
	if err := t.release(ctx, "notifications", owner, ids); err != nil {
		return fmt.Errorf("release notifications: %w", err)
	}
	return nil
}

func (t *tx) Notifications(ctx context.Context, recipient string) ([]disburse.Notification, error) {
	query, args := `SELECT `+notificationColumns+` FROM notifications n`, []any(nil)
	if recipient != "" {
		query, args = query+` WHERE n.recipient = ?`, append(args, recipient)
	}
	return list(ctx, t, "notifications", scanNotification, query+` ORDER BY n.created_at, n.id`, args...)
}

// Notifications hands over the notification delivery's port: write
// transactions on the same pools, with Write's retries, over
// notifications.Tx.
func (s *Store) Notifications() notifications.Store { return notificationStore{s} }

// notificationStore is a Store seen through the notifications package's port.
type notificationStore struct{ s *Store }

var _ notifications.Tx = (*tx)(nil)

// Write is Store.Write for the delivery.
func (n notificationStore) Write(ctx context.Context, fn func(notifications.Tx) error) error {
	return n.s.writeTx(ctx, func(t *tx) error { return fn(t) })
}
