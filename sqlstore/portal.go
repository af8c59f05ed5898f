package sqlstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/portal/backoffice"
)

// The portal's tables (migration 00011): users, sessions and uploads, and
// the operator's views across organisations: backoffice.Store and
// backoffice.Tx.

var _ backoffice.Store = (*Store)(nil)
var _ backoffice.Tx = (*tx)(nil)

// WritePortal runs fn in a write transaction, as Write does.
func (s *Store) WritePortal(ctx context.Context, fn func(backoffice.Tx) error) error {
	return s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

// ReadPortal runs fn in a read-only transaction, as Read does.
func (s *Store) ReadPortal(ctx context.Context, fn func(backoffice.Tx) error) error {
	return s.readTx(ctx, func(t *tx) error { return fn(t) })
}

const portalUserColumns = `u.id, u.email, u.password_hash, u.role, u.organisation_id, u.roles, u.created_at`

func portalUserFields(u *backoffice.User) []any {
	return []any{&u.ID, &u.Email, &u.PasswordHash, &u.Role, opt(&u.OrganisationID), roles(&u.Roles), at(&u.CreatedAt)}
}

func (t *tx) InsertPortalUser(ctx context.Context, u backoffice.User) error {
	return t.insert(ctx, "portal user",
		`INSERT INTO portal_users (id, email, password_hash, role, organisation_id, roles, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.Email, u.PasswordHash, string(u.Role), nullID(u.OrganisationID), u.Roles.String(), micros(u.CreatedAt))
}

func (t *tx) PortalUser(ctx context.Context, id string) (backoffice.User, error) {
	return t.portalUser(ctx, "id", id)
}

func (t *tx) PortalUserByEmail(ctx context.Context, email string) (backoffice.User, error) {
	return t.portalUser(ctx, "email", email)
}

func (t *tx) SetPortalPassword(ctx context.Context, id, hash string) error {
	return t.update(ctx, "portal user", `UPDATE portal_users SET password_hash = ? WHERE id = ?`, hash, id)
}

// portalUser looks a user up by a unique column, id or email.
func (t *tx) portalUser(ctx context.Context, column, value string) (backoffice.User, error) {
	var u backoffice.User
	err := t.queryRow(ctx, `SELECT `+portalUserColumns+` FROM portal_users u WHERE u.`+column+` = ?`, value).Scan(portalUserFields(&u)...)
	return u, found("portal user", err)
}

func (t *tx) InsertPortalSession(ctx context.Context, s backoffice.Session) error {
	return t.insert(ctx, "portal session",
		`INSERT INTO portal_sessions (hash, user_id, created_at, last_seen_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		s.Hash, s.UserID, micros(s.CreatedAt), micros(s.LastSeenAt), micros(s.ExpiresAt))
}

func (t *tx) PortalSession(ctx context.Context, hash string) (backoffice.Session, error) {
	var s backoffice.Session
	dest := append([]any{&s.Hash, &s.UserID, at(&s.CreatedAt), at(&s.LastSeenAt), at(&s.ExpiresAt)}, portalUserFields(&s.User)...)
	err := t.queryRow(ctx, `SELECT s.hash, s.user_id, s.created_at, s.last_seen_at, s.expires_at, `+portalUserColumns+`
		FROM portal_sessions s JOIN portal_users u ON u.id = s.user_id WHERE s.hash = ?`, hash).Scan(dest...)
	return s, found("portal session", err)
}

func (t *tx) TouchPortalSession(ctx context.Context, hash string, at time.Time) error {
	return t.update(ctx, "portal session", `UPDATE portal_sessions SET last_seen_at = ? WHERE hash = ?`, micros(at), hash)
}

func (t *tx) DeletePortalSession(ctx context.Context, hash string) error {
	if _, err := t.exec(ctx, `DELETE FROM portal_sessions WHERE hash = ?`, hash); err != nil {
		return fmt.Errorf("delete portal session: %w", err)
	}
	return nil
}

func (t *tx) DeleteDeadPortalSessions(ctx context.Context, now, idleSince time.Time, limit int) (int, error) {
	res, err := t.exec(ctx, `DELETE FROM portal_sessions WHERE hash IN (
		SELECT hash FROM portal_sessions WHERE expires_at <= ? OR last_seen_at <= ? LIMIT ?)`, micros(now), micros(idleSince), limit)
	if err != nil {
		return 0, fmt.Errorf("delete dead portal sessions: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// OrganisationSummaries sums each organisation's payout balances and what
// its batches hold; a search matches anywhere in the name, case blind.
func (t *tx) OrganisationSummaries(ctx context.Context, search string, limit int) ([]backoffice.OrganisationSummary, error) {
	query, args := `SELECT o.id, o.name, o.currency, o.referrals_enabled, o.reversal_period_us, o.holding_account_id, o.created_at,
		(SELECT CAST(COALESCE(SUM(a.balance), 0) AS BIGINT) FROM accounts a WHERE a.organisation_id = o.id AND a.kind = 'PAYOUT'),
		(SELECT CAST(COALESCE(SUM(b.held_amount), 0) AS BIGINT) FROM batches b WHERE b.organisation_id = o.id AND b.status = 'OPEN')
		FROM organisations o`, []any{}
	if search != "" {
		query, args = query+` WHERE LOWER(o.name) LIKE ? ESCAPE '\'`, append(args, "%"+likeEscape(strings.ToLower(search))+"%")
	}
	return list(ctx, t, "organisation summaries", func(r *sql.Rows) (backoffice.OrganisationSummary, error) {
		var s backoffice.OrganisationSummary
		var period int64
		err := r.Scan(&s.ID, &s.Name, &s.Currency, &s.ReferralsEnabled, &period, opt(&s.HoldingAccountID), at(&s.CreatedAt), &s.Float, &s.Held)
		s.ReversalPeriod = time.Duration(period) * time.Microsecond
		return s, err
	}, query+` ORDER BY o.name, o.id LIMIT ?`, append(args, limit)...)
}

// likeEscape makes s match itself in a LIKE pattern.
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func (t *tx) APIKeys(ctx context.Context, organisationID string) ([]auth.APIKey, error) {
	return list(ctx, t, "api keys", func(r *sql.Rows) (auth.APIKey, error) {
		var k auth.APIKey
		return k, r.Scan(apiKeyFields(&k)...)
	}, `SELECT `+apiKeyColumns+` FROM api_keys WHERE organisation_id = ? ORDER BY created_at DESC, id DESC`, organisationID)
}

func (t *tx) AllBatches(ctx context.Context, f backoffice.BatchFilter) ([]disburse.Batch, error) {
	var where []string
	var args []any
	if f.OrganisationID != "" {
		where, args = append(where, "organisation_id = ?"), append(args, f.OrganisationID)
	}
	if f.Status != "" {
		where, args = append(where, "status = ?"), append(args, string(f.Status))
	}
	if f.Before != "" {
		where, args = append(where, "(created_at, id) < (SELECT b.created_at, b.id FROM batches b WHERE b.id = ?)"), append(args, f.Before)
	}
	query := `SELECT ` + batchColumns + ` FROM batches`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	return list(ctx, t, "batches", func(r *sql.Rows) (disburse.Batch, error) { return scanBatch(r) },
		query+` ORDER BY created_at DESC, id DESC LIMIT ?`, append(args, limit(f.Limit))...)
}

// PaymentTransfers reads by transfers_payment (migration 00014).
func (t *tx) PaymentTransfers(ctx context.Context, paymentID string) ([]disburse.Transfer, error) {
	return list(ctx, t, "payment transfers", func(r *sql.Rows) (disburse.Transfer, error) {
		var tr disburse.Transfer
		var kind, leg string
		err := r.Scan(&tr.ID, &tr.FromAccountID, &tr.ToAccountID, &tr.Amount, &kind, opt(&tr.PaymentID), opt(&leg), &tr.Reference, at(&tr.CreatedAt))
		tr.Kind, tr.Leg = disburse.TransferKind(kind), disburse.Leg(leg)
		return tr, err
	}, `SELECT id, from_account_id, to_account_id, amount, kind, payment_id, leg, reference, created_at
		FROM transfers WHERE payment_id = ? ORDER BY created_at, id`, paymentID)
}

// NotificationsPage reads about a page of rows whatever the filter, by
// the indexes of migration 00014 and earlier:
//
//   - no filter: the primary key, newest first;
//   - a recipient: notifications_recipient; a recipient has few rows, so
//     they are sorted here and status and channel checked on them (written
//     as status || ” so that no engine takes another index for them);
//   - pending ones alone: notifications_due (next_attempt_at, id), in
//     that order, from the cursor's place in it;
//   - other statuses or a channel: sent and failed ones by
//     notifications_done (status, channel, id), read once for each pair
//     the filter allows, each from the cursor and at most a page; pending
//     ones (for a channel with any status) by notifications_due, sorted
//     here: quick while the delivery worker keeps up, a sort of the whole
//     backlog while a large one waits. The term on next_attempt_at makes
//     SQLite, which keeps no statistics, take that index rather than walk
//     the whole table by id. The parts are merged by id.
//
// The term status <> 'PENDING' is written out where notifications_done is
// meant: SQLite uses a partial index only for a query that states its
// condition.
func (t *tx) NotificationsPage(ctx context.Context, f backoffice.NotificationFilter) ([]disburse.Notification, error) {
	n := limit(f.Limit)
	var query string
	var args []any
	switch {
	case f.Status == disburse.NotificationPending && f.Recipient == "":
		return t.pendingPage(ctx, f, n)
	case f.Recipient != "":
		where, whereArgs := []string{"n.recipient = ?"}, []any{f.Recipient}
		if f.Status != "" {
			where, whereArgs = append(where, "n.status || '' = ?"), append(whereArgs, string(f.Status))
		}
		if f.Channel != "" {
			where, whereArgs = append(where, "n.channel || '' = ?"), append(whereArgs, string(f.Channel))
		}
		query, args = notificationPage(f, n, where, whereArgs)
	case f.Status == "" && f.Channel == "":
		query, args = notificationPage(f, n, nil, nil)
	default:
		query, args = notificationParts(f, n)
	}
	return list(ctx, t, "notifications page", scanNotification, query, args...)
}

// notificationPage is the query of one page of the notifications that
// match where, newest first, from the filter's cursor.
func notificationPage(f backoffice.NotificationFilter, n int64, where []string, args []any) (string, []any) {
	if f.After != "" {
		where, args = append(where, "n.id < ?"), append(args, f.After)
	}
	query := `SELECT ` + notificationColumns + ` FROM notifications n`
	if len(where) > 0 {
		query += ` WHERE ` + strings.Join(where, " AND ")
	}
	return query + ` ORDER BY n.id DESC LIMIT ?`, append(args, n)
}

// notificationParts is the query of a page filtered by status or channel:
// a page of each (status, channel) pair the filter allows, each from its
// index, merged by id.
func notificationParts(f backoffice.NotificationFilter, n int64) (string, []any) {
	statuses, channels := disburse.NotificationStatuses(), disburse.Channels()
	if f.Status != "" {
		statuses = []disburse.NotificationStatus{f.Status}
	}
	if f.Channel != "" {
		channels = []disburse.Channel{f.Channel}
	}
	var parts []string
	var args []any
	part := func(where []string, a []any) {
		q, a := notificationPage(f, n, where, a)
		parts, args = append(parts, `SELECT * FROM (`+q+`) AS p`+strconv.Itoa(len(parts))), append(args, a...)
	}
	for _, st := range statuses {
		if st == disburse.NotificationPending {
			where, a := []string{"n.status = 'PENDING'", "n.next_attempt_at >= ?"}, []any{int64(math.MinInt64)}
			if f.Channel != "" {
				where, a = append(where, "n.channel = ?"), append(a, string(f.Channel))
			}
			part(where, a)
			continue
		}
		for _, c := range channels {
			part([]string{"n.status = ?", "n.channel = ?", "n.status <> 'PENDING'"}, []any{string(st), string(c)})
		}
	}
	if len(parts) == 1 {
		return parts[0], args
	}
	return strings.Join(parts, ` UNION ALL `) + ` ORDER BY id DESC LIMIT ?`, append(args, n)
}

// pendingPage lists pending notifications in the order they fall due,
// from the cursor's place: its due time is read first and bound as a
// value, since SQLite seeks the index by a row value only when it is given
// one (from a subquery it would walk every row due at the same time).
func (t *tx) pendingPage(ctx context.Context, f backoffice.NotificationFilter, n int64) ([]disburse.Notification, error) {
	where, args := []string{"n.status = 'PENDING'"}, []any(nil)
	if f.Channel != "" {
		where, args = append(where, "n.channel = ?"), append(args, string(f.Channel))
	}
	if f.After != "" {
		var due int64
		err := t.queryRow(ctx, `SELECT next_attempt_at FROM notifications WHERE id = ?`, f.After).Scan(&due)
		if err != nil {
			return nil, found("notifications page", err)
		}
		where, args = append(where, "(n.next_attempt_at, n.id) > (?, ?)"), append(args, due, f.After)
	}
	return list(ctx, t, "notifications page", scanNotification, `SELECT `+notificationColumns+` FROM notifications n WHERE `+
		strings.Join(where, " AND ")+` ORDER BY n.next_attempt_at, n.id LIMIT ?`, append(args, n)...)
}

const uploadColumns = `id, organisation_id, batch_id, phase, done, total, rows_read, created_at, updated_at, lines, failure_count, failures`

func (t *tx) InsertUpload(ctx context.Context, u backoffice.Upload) error {
	failures, err := uploadFailuresJSON(u.Failures)
	if err != nil {
		return err
	}
	return t.insert(ctx, "upload", `INSERT INTO portal_uploads (`+uploadColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		u.ID, u.OrganisationID, u.BatchID, string(u.Phase), u.Done, u.Total, u.Rows, micros(u.CreatedAt), micros(u.UpdatedAt),
		u.Lines, u.FailureCount, failures)
}

func (t *tx) UpdateUpload(ctx context.Context, u backoffice.Upload) error {
	failures, err := uploadFailuresJSON(u.Failures)
	if err != nil {
		return err
	}
	return t.update(ctx, "upload", `UPDATE portal_uploads SET phase = ?, done = ?, total = ?, rows_read = ?, updated_at = ?,
		lines = ?, failure_count = ?, failures = ? WHERE id = ?`,
		string(u.Phase), u.Done, u.Total, u.Rows, micros(u.UpdatedAt), u.Lines, u.FailureCount, failures, u.ID)
}

func (t *tx) Upload(ctx context.Context, id string) (backoffice.Upload, error) {
	return t.upload(ctx, `SELECT `+uploadColumns+` FROM portal_uploads WHERE id = ?`, id)
}

func (t *tx) LastUpload(ctx context.Context, batchID string) (backoffice.Upload, error) {
	return t.upload(ctx, `SELECT `+uploadColumns+` FROM portal_uploads WHERE batch_id = ?
		ORDER BY created_at DESC, id DESC LIMIT 1`, batchID)
}

// upload reads the one upload query finds.
func (t *tx) upload(ctx context.Context, query string, args ...any) (backoffice.Upload, error) {
	var u backoffice.Upload
	var phase, failures string
	err := t.queryRow(ctx, query, args...).Scan(&u.ID, &u.OrganisationID, &u.BatchID, &phase, &u.Done, &u.Total, &u.Rows,
		at(&u.CreatedAt), at(&u.UpdatedAt), &u.Lines, &u.FailureCount, &failures)
	if err != nil {
		return u, found("upload", err)
	}
	u.Phase = backoffice.UploadPhase(phase)
	u.Failures, err = uploadFailures(failures)
	return u, err
}

// uploadFailure is a failure of an upload as the failures column keeps it,
// in JSON.
type uploadFailure struct {
	Line    int    `json:"line"`
	Column  string `json:"column,omitempty"`
	Value   string `json:"value,omitempty"`
	Message string `json:"message"`
}

func uploadFailuresJSON(fs []csvpayments.Failure) (string, error) {
	out := make([]uploadFailure, len(fs))
	for i, f := range fs {
		out[i] = uploadFailure(f)
	}
	b, err := json.Marshal(out)
	if err != nil {
		return "", fmt.Errorf("upload failures: %w", err)
	}
	return string(b), nil
}

func uploadFailures(text string) ([]csvpayments.Failure, error) {
	var in []uploadFailure
	if err := json.Unmarshal([]byte(text), &in); err != nil {
		return nil, fmt.Errorf("upload failures: %w", err)
	}
	if len(in) == 0 {
		return nil, nil
	}
	out := make([]csvpayments.Failure, len(in))
	for i, f := range in {
		out[i] = csvpayments.Failure(f)
	}
	return out, nil
}

// DeleteOldUploads keeps a DRAFT batch's last upload while it has
// failures, whatever its age: the batch's page shows them until the next
// upload (docs/portal.md, "Organisation users").
func (t *tx) DeleteOldUploads(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := t.exec(ctx, `DELETE FROM portal_uploads WHERE id IN (
		SELECT u.id FROM portal_uploads u WHERE u.updated_at < ? AND NOT (u.failure_count > 0
			AND EXISTS (SELECT 1 FROM batches b WHERE b.id = u.batch_id AND b.status = 'DRAFT')
			AND NOT EXISTS (SELECT 1 FROM portal_uploads n WHERE n.batch_id = u.batch_id AND (n.created_at, n.id) > (u.created_at, u.id)))
		LIMIT ?)`, micros(before), limit)
	if err != nil {
		return 0, fmt.Errorf("delete old uploads: %w", err)
	}
	n, err := res.RowsAffected()
	return int(n), err
}
