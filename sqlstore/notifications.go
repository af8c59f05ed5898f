package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse"
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

// UpdateNotification writes the outcome only while n.LeaseOwner still holds
// the lease: a holder whose lease another process has taken over gets
// disburse.ErrLeaseLost and overwrites nothing. It keeps the stored
// NextAttemptAt when n's is zero (a notification that is done needs no next
// attempt, but the column does).
func (t *tx) UpdateNotification(ctx context.Context, n disburse.Notification) error {
	res, err := t.exec(ctx, `UPDATE notifications
		SET status = ?, attempts = ?, next_attempt_at = COALESCE(?, next_attempt_at), last_error = ?, sent_at = ?, lease_owner = '', lease_until = NULL
		WHERE id = ? AND lease_owner = ?`,
		string(n.Status), n.Attempts, micros(n.NextAttemptAt), n.LastError, micros(n.SentAt), n.ID, n.LeaseOwner)
	if err != nil {
		return fmt.Errorf("update notification: %w", err)
	}
	switch k, err := res.RowsAffected(); {
	case err != nil:
		return fmt.Errorf("update notification: %w", err)
	case k > 0:
		return nil
	}
	var exists int
	if err := t.queryRow(ctx, `SELECT COUNT(*) FROM notifications WHERE id = ?`, n.ID).Scan(&exists); err != nil {
		return fmt.Errorf("update notification: %w", err)
	}
	if exists == 0 {
		return fmt.Errorf("update notification: %w", disburse.ErrNotFound)
	}
	return fmt.Errorf("update notification %s for %q: %w", n.ID, n.LeaseOwner, disburse.ErrLeaseLost)
}

func (t *tx) ReleaseNotifications(ctx context.Context, owner string) error {
	_, err := t.exec(ctx, `UPDATE notifications SET lease_owner = '', lease_until = NULL WHERE lease_owner = ?`, owner)
	if err != nil {
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
