package backoffice

import (
	"context"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// Store is the back office's persistence port: transactions over the
// portal's tables and the domain's rows it shows. sqlstore implements it
// once for both engines, and whoever opens the store hands it to
// NewService.
type Store interface {
	// WritePortal runs fn in one write transaction and commits when fn
	// returns nil, retrying it as disburse.Store.Write does.
	WritePortal(ctx context.Context, fn func(Tx) error) error
	// ReadPortal runs fn in a read-only transaction: one consistent snapshot.
	ReadPortal(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a transaction can do for the management portal: its users,
// their sessions, the operator's views across organisations and the
// progress of uploads, and the few lookups of the domain's rows that the
// views check a user's scope on (the same methods as disburse.Tx's).
type Tx interface {
	// InsertAudit appends to the audit log, as disburse.Tx does.
	InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error
	// Organisation returns the organisation id, as disburse.Tx does.
	Organisation(ctx context.Context, id string) (disburse.Organisation, error)
	// Account returns the account id, as disburse.Tx does.
	Account(ctx context.Context, id string) (disburse.Account, error)
	// APIKey returns the API key id, as disburse.Tx does.
	APIKey(ctx context.Context, id string) (auth.APIKey, error)
	// Batch returns the batch id, as disburse.Tx does.
	Batch(ctx context.Context, id string) (disburse.Batch, error)
	// Payment returns the payment id, as disburse.Tx does.
	Payment(ctx context.Context, id string) (disburse.Payment, error)

	// InsertPortalUser adds a user; an email another user holds is ErrDuplicate.
	InsertPortalUser(ctx context.Context, u User) error
	// PortalUser returns the user id.
	PortalUser(ctx context.Context, id string) (User, error)
	// PortalUserByEmail returns the user with email.
	PortalUserByEmail(ctx context.Context, email string) (User, error)
	// SetPortalPassword replaces a user's password hash.
	SetPortalPassword(ctx context.Context, id, hash string) error
	// OrganisationUsers lists an organisation's users by email.
	OrganisationUsers(ctx context.Context, organisationID string) ([]User, error)
	// LockOrganisationUsers is OrganisationUsers with each user locked
	// until the transaction ends.
	LockOrganisationUsers(ctx context.Context, organisationID string) ([]User, error)
	// SetPortalUserRoles replaces an organisation user's roles.
	SetPortalUserRoles(ctx context.Context, id string, roles auth.Roles) error
	// DeletePortalUser deletes a user and their sessions.
	DeletePortalUser(ctx context.Context, id string) error

	// InsertInvitation adds an invitation, in place of the organisation's
	// invitation of the same email, if any.
	InsertInvitation(ctx context.Context, inv Invitation) error
	// Invitation returns the invitation id.
	Invitation(ctx context.Context, id string) (Invitation, error)
	// InvitationByHash returns the invitation whose token has hash.
	InvitationByHash(ctx context.Context, hash string) (Invitation, error)
	// Invitations lists an organisation's invitations, newest first.
	Invitations(ctx context.Context, organisationID string) ([]Invitation, error)
	// DeleteInvitation deletes the invitation id; none is ErrNotFound.
	DeleteInvitation(ctx context.Context, id string) error

	// InsertPortalSession starts a session.
	InsertPortalSession(ctx context.Context, s Session) error
	// PortalSession returns the session with hash, its user filled in.
	PortalSession(ctx context.Context, hash string) (Session, error)
	// TouchPortalSession moves a session's last use to at.
	TouchPortalSession(ctx context.Context, hash string, at time.Time) error
	// DeletePortalSession ends a session; a missing one is not an error.
	DeletePortalSession(ctx context.Context, hash string) error
	// DeleteDeadPortalSessions deletes up to limit sessions that expired at
	// or before now or were last used at or before idleSince, and returns
	// how many it deleted.
	DeleteDeadPortalSessions(ctx context.Context, now, idleSince time.Time, limit int) (int, error)

	// OrganisationSummaries lists organisations by name with their float
	// and held totals, only those whose name contains search when it is not
	// empty, at most limit of them.
	OrganisationSummaries(ctx context.Context, search string, limit int) ([]OrganisationSummary, error)
	// APIKeys lists an organisation's keys, newest first.
	APIKeys(ctx context.Context, organisationID string) ([]auth.APIKey, error)
	// AllBatches lists batches of every organisation newest first, narrowed
	// by f (an empty organisation id: all), after the batch before.
	AllBatches(ctx context.Context, f BatchFilter) ([]disburse.Batch, error)
	// PaymentsAfter lists up to limit of a batch's payments in the order
	// they were added, starting after the payment after (empty: from the
	// first), as disburse.Tx does: a page costs the same however far into
	// the batch it is.
	PaymentsAfter(ctx context.Context, batchID, after string, limit int) ([]disburse.Payment, error)
	// DraftLegs counts the batch's DRAFT legs by whether their payee is a
	// member now, in one statement, whatever the batch's size (Preview).
	DraftLegs(ctx context.Context, batchID string) (DraftLegs, error)
	// SandboxDraftLegs is DraftLegs for a batch of a sandbox organisation,
	// its legs counted by whether their payee is a member of the sandbox
	// (docs/sandbox.md).
	SandboxDraftLegs(ctx context.Context, batchID string) (DraftLegs, error)
	// PaymentTransfers lists the transfers of a payment's legs, oldest
	// first, by the index of transfers on their payment.
	PaymentTransfers(ctx context.Context, paymentID string) ([]disburse.Transfer, error)
	// NotificationsPage lists up to f.Limit notifications narrowed by f,
	// after the notification f.After: newest first (by id, which is
	// time-ordered), but the pending ones alone (f.Status PENDING and no
	// recipient) in the order they fall due, as the delivery worker takes
	// them. Each filter is read by an index, so a page costs about the same
	// on an outbox of millions as on one of ten. A cursor that names no
	// notification may be ErrNotFound.
	NotificationsPage(ctx context.Context, f NotificationFilter) ([]disburse.Notification, error)

	// InsertUpload starts an upload's progress; an id taken is ErrDuplicate.
	InsertUpload(ctx context.Context, u Upload) error
	// UpdateUpload writes an upload's phase and counts.
	UpdateUpload(ctx context.Context, u Upload) error
	// Upload returns the upload id.
	Upload(ctx context.Context, id string) (Upload, error)
	// LastUpload returns the batch's upload started last; ErrNotFound
	// when the batch has none.
	LastUpload(ctx context.Context, batchID string) (Upload, error)
	// DeleteOldUploads deletes up to limit uploads last changed before
	// before, but for the last upload of a DRAFT batch while it has
	// failures, and returns how many it deleted.
	DeleteOldUploads(ctx context.Context, before time.Time, limit int) (int, error)
}

// NotificationFilter narrows the portal's list of notifications; an empty
// field does not narrow it.
type NotificationFilter struct {
	Recipient string
	Status    disburse.NotificationStatus
	Channel   disburse.Channel
	After     string // the last notification of the previous page
	Limit     int
}

// BatchFilter narrows the operator's list of batches.
type BatchFilter struct {
	OrganisationID string
	Status         disburse.BatchStatus
	Before         string // a batch id: list the ones after it in the order
	Limit          int
}

// OrganisationSummary is one line of the operator's list of organisations.
type OrganisationSummary struct {
	disburse.Organisation
	Float, Held disburse.Money
}
