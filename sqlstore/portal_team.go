package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/portal/backoffice"
)

// An organisation's portal users and its invitations (migration 00020):
// backoffice.Tx's part for the organisation admin's Users page.

func (t *tx) OrganisationUsers(ctx context.Context, organisationID string) ([]backoffice.User, error) {
	return t.organisationUsers(ctx, organisationID, "")
}

func (t *tx) LockOrganisationUsers(ctx context.Context, organisationID string) ([]backoffice.User, error) {
	return t.organisationUsers(ctx, organisationID, t.e.LockClause(false))
}

// organisationUsers reads by the index portal_users_organisation.
func (t *tx) organisationUsers(ctx context.Context, organisationID, lock string) ([]backoffice.User, error) {
	return list(ctx, t, "organisation users", func(r *sql.Rows) (backoffice.User, error) {
		var u backoffice.User
		return u, r.Scan(portalUserFields(&u)...)
	}, `SELECT `+portalUserColumns+` FROM portal_users u WHERE u.organisation_id = ? ORDER BY u.email`+lock, organisationID)
}

func (t *tx) SetPortalUserRoles(ctx context.Context, id string, roles auth.Roles) error {
	return t.update(ctx, "portal user", `UPDATE portal_users SET roles = ? WHERE id = ?`, roles.String(), id)
}

// DeletePortalUser deletes the user's sessions first: they refer to it.
func (t *tx) DeletePortalUser(ctx context.Context, id string) error {
	if _, err := t.exec(ctx, `DELETE FROM portal_sessions WHERE user_id = ?`, id); err != nil {
		return fmt.Errorf("delete portal user's sessions: %w", err)
	}
	return t.delete(ctx, "portal user", `DELETE FROM portal_users WHERE id = ?`, id)
}

const invitationColumns = `id, organisation_id, email, roles, hash, created_at, expires_at`

func invitationFields(inv *backoffice.Invitation) []any {
	return []any{&inv.ID, &inv.OrganisationID, &inv.Email, roles(&inv.Roles), &inv.Hash, at(&inv.CreatedAt), at(&inv.ExpiresAt)}
}

func (t *tx) InsertInvitation(ctx context.Context, inv backoffice.Invitation) error {
	if _, err := t.exec(ctx, `DELETE FROM portal_invitations WHERE organisation_id = ? AND email = ?`, inv.OrganisationID, inv.Email); err != nil {
		return fmt.Errorf("replace invitation: %w", err)
	}
	return t.insert(ctx, "invitation", `INSERT INTO portal_invitations (`+invitationColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		inv.ID, inv.OrganisationID, inv.Email, inv.Roles.String(), inv.Hash, micros(inv.CreatedAt), micros(inv.ExpiresAt))
}

func (t *tx) Invitation(ctx context.Context, id string) (backoffice.Invitation, error) {
	return t.invitation(ctx, "id", id)
}

func (t *tx) InvitationByHash(ctx context.Context, hash string) (backoffice.Invitation, error) {
	return t.invitation(ctx, "hash", hash)
}

// invitation looks an invitation up by a unique column, id or hash.
func (t *tx) invitation(ctx context.Context, column, value string) (backoffice.Invitation, error) {
	var inv backoffice.Invitation
	err := t.queryRow(ctx, `SELECT `+invitationColumns+` FROM portal_invitations WHERE `+column+` = ?`, value).Scan(invitationFields(&inv)...)
	return inv, found("invitation", err)
}

// Invitations reads by the unique index on (organisation_id, email); an
// organisation has few.
func (t *tx) Invitations(ctx context.Context, organisationID string) ([]backoffice.Invitation, error) {
	return list(ctx, t, "invitations", func(r *sql.Rows) (backoffice.Invitation, error) {
		var inv backoffice.Invitation
		return inv, r.Scan(invitationFields(&inv)...)
	}, `SELECT `+invitationColumns+` FROM portal_invitations WHERE organisation_id = ? ORDER BY created_at DESC, id DESC`, organisationID)
}

func (t *tx) DeleteInvitation(ctx context.Context, id string) error {
	return t.delete(ctx, "invitation", `DELETE FROM portal_invitations WHERE id = ?`, id)
}
