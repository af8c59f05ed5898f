package disburse

import (
	"context"
	"time"
)

// PortalTx is what a transaction can do for the management portal: its
// users, their sessions, the audit log, and the operator's views across
// organisations. Tx embeds it; sqlstore implements it once for both engines.
type PortalTx interface {
	// InsertPortalUser adds a user; an email another user holds is ErrDuplicate.
	InsertPortalUser(ctx context.Context, u PortalUser) error
	PortalUser(ctx context.Context, id string) (PortalUser, error)
	PortalUserByEmail(ctx context.Context, email string) (PortalUser, error)
	// SetPortalPassword replaces a user's password hash.
	SetPortalPassword(ctx context.Context, id, hash string) error

	InsertPortalSession(ctx context.Context, s PortalSession) error
	// PortalSession returns the session with hash, its user filled in.
	PortalSession(ctx context.Context, hash string) (PortalSession, error)
	// TouchPortalSession moves a session's last use to at.
	TouchPortalSession(ctx context.Context, hash string, at time.Time) error
	// DeletePortalSession ends a session; a missing one is not an error.
	DeletePortalSession(ctx context.Context, hash string) error
	// DeleteDeadPortalSessions deletes up to limit sessions that expired at
	// or before now or were last used at or before idleSince, and returns
	// how many it deleted.
	DeleteDeadPortalSessions(ctx context.Context, now, idleSince time.Time, limit int) (int, error)

	// InsertAudit appends to the audit log. Nothing updates or deletes it.
	InsertAudit(ctx context.Context, es ...AuditEntry) error
	// AuditEntries lists the log newest first, only organisationID's when
	// it is not empty, after the entry before (empty: from the newest).
	AuditEntries(ctx context.Context, organisationID, before string, limit int) ([]AuditEntry, error)

	// OrganisationSummaries lists organisations by name with their float
	// and held totals, only those whose name contains search when it is not
	// empty, at most limit of them.
	OrganisationSummaries(ctx context.Context, search string, limit int) ([]OrganisationSummary, error)
	// APIKeys lists an organisation's keys, newest first.
	APIKeys(ctx context.Context, organisationID string) ([]APIKey, error)
	// AllBatches lists batches of every organisation newest first, narrowed
	// by f (an empty organisation id: all), after the batch before.
	AllBatches(ctx context.Context, f PortalBatchFilter) ([]Batch, error)
	// PaymentsAfter lists up to limit of a batch's payments in the order
	// they were added, starting after the payment after (empty: from the
	// first): a page costs the same however far into the batch it is.
	PaymentsAfter(ctx context.Context, batchID, after string, limit int) ([]Payment, error)
	// PaymentTransfers lists the transfers of a payment's legs, oldest
	// first, by the index of transfers on their payment.
	PaymentTransfers(ctx context.Context, paymentID string) ([]Transfer, error)
	// NotificationsPage lists up to f.Limit notifications narrowed by f,
	// after the notification f.After: newest first (by id, which is
	// time-ordered), but the pending ones alone (f.Status PENDING and no
	// recipient) in the order they fall due, as the delivery worker takes
	// them. Each filter is read by an index, so a page costs about the same
	// on an outbox of millions as on one of ten. A cursor that names no
	// notification may be ErrNotFound.
	NotificationsPage(ctx context.Context, f NotificationFilter) ([]Notification, error)

	// InsertUpload starts an upload's progress; an id taken is ErrDuplicate.
	InsertUpload(ctx context.Context, u Upload) error
	// UpdateUpload writes an upload's phase and counts.
	UpdateUpload(ctx context.Context, u Upload) error
	Upload(ctx context.Context, id string) (Upload, error)
	// DeleteOldUploads deletes up to limit uploads last changed before
	// before and returns how many it deleted.
	DeleteOldUploads(ctx context.Context, before time.Time, limit int) (int, error)
}

// NotificationFilter narrows the portal's list of notifications; an empty
// field does not narrow it.
type NotificationFilter struct {
	Recipient string
	Status    NotificationStatus
	Channel   Channel
	After     string // the last notification of the previous page
	Limit     int
}

// PortalBatchFilter narrows the operator's list of batches.
type PortalBatchFilter struct {
	OrganisationID string
	Status         BatchStatus
	Before         string // a batch id: list the ones after it in the order
	Limit          int
}

// OrganisationSummary is one line of the operator's list of organisations.
type OrganisationSummary struct {
	Organisation
	Float, Held Money
}
