package backoffice

import (
	"context"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// An organisation's admins manage its portal users: they invite
// (invitation.go), change roles and remove, each written to the audit
// log with the admin as its actor. An organisation always keeps an admin,
// so that someone can still do all of this (docs/portal.md, "Users").

// teamAdmin is the organisation by manages the users of: by must be an
// admin of it. An operator has no organisation here (not found), an
// organisation user without the admin role is forbidden.
func teamAdmin(by User) (string, error) {
	if by.Role != RoleOrganisation {
		return "", disburse.NotFound("organisation")
	}
	if err := by.Roles.Permit(auth.RoleAdmin); err != nil {
		return "", err
	}
	return by.OrganisationID, nil
}

// Team lists by's organisation's users by email and its invitations,
// newest first, expired ones included until withdrawn or replaced.
func (s *Service) Team(ctx context.Context, by User) ([]User, []Invitation, error) {
	orgID, err := teamAdmin(by)
	if err != nil {
		return nil, nil, err
	}
	var users []User
	var invitations []Invitation
	err = s.Store.ReadPortal(ctx, func(tx Tx) (err error) {
		if users, err = tx.OrganisationUsers(ctx, orgID); err != nil {
			return err
		}
		invitations, err = tx.Invitations(ctx, orgID)
		return err
	})
	for i := range users {
		users[i].PasswordHash = ""
	}
	return users, invitations, err
}

// SetRoles gives a user of by's organisation roles (at least one). The
// change applies from the user's next request: every request reads the
// user afresh.
func (s *Service) SetRoles(ctx context.Context, by User, userID string, roles auth.Roles) (User, error) {
	if roles == 0 {
		return User{}, disburse.Invalid("Roles", "", "choose at least one role")
	}
	var changed User
	err := s.changeTeam(ctx, by, userID, func(tx Tx, u User, team []User) error {
		if err := keepsAnAdmin(team, u.ID, roles); err != nil {
			return err
		}
		if err := tx.SetPortalUserRoles(ctx, u.ID, roles); err != nil {
			return err
		}
		changed = u
		changed.Roles, changed.PasswordHash = roles, ""
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), by.Actor(), "portalUser.rolesChanged", u.OrganisationID, u.ID,
			disburse.Change(map[string]string{"email": u.Email, "roles": u.Roles.String()}, map[string]string{"email": u.Email, "roles": roles.String()})))
	})
	return changed, err
}

// RemoveUser removes a user of by's organisation and ends their sessions
// at once; by may remove themselves while another admin remains.
func (s *Service) RemoveUser(ctx context.Context, by User, userID string) (User, error) {
	var removed User
	err := s.changeTeam(ctx, by, userID, func(tx Tx, u User, team []User) error {
		if err := keepsAnAdmin(team, u.ID, 0); err != nil {
			return err
		}
		if err := tx.DeletePortalUser(ctx, u.ID); err != nil {
			return err
		}
		removed = u
		removed.PasswordHash = ""
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), by.Actor(), "portalUser.removed", u.OrganisationID, u.ID,
			map[string]string{"email": u.Email, "roles": u.Roles.String()}))
	})
	return removed, err
}

// changeTeam runs change on the user userID of by's organisation, with
// the organisation's users locked, so that two admins acting at once
// cannot leave it without an admin; by must still be an admin as the
// lock finds them (another admin may have just removed them). Another
// organisation's user, or an operator, is not found.
func (s *Service) changeTeam(ctx context.Context, by User, userID string, change func(tx Tx, u User, team []User) error) error {
	orgID, err := teamAdmin(by)
	if err != nil {
		return err
	}
	if !disburse.ValidID(userID) {
		return disburse.NotFound("portal user")
	}
	return s.Store.WritePortal(ctx, func(tx Tx) error {
		team, err := tx.LockOrganisationUsers(ctx, orgID)
		if err != nil {
			return err
		}
		if err := stillAdmin(team, by); err != nil {
			return err
		}
		for _, u := range team {
			if u.ID == userID {
				return change(tx, u, team)
			}
		}
		return disburse.NotFound("portal user")
	})
}

// stillAdmin is nil when by is an admin in team, else forbidden.
func stillAdmin(team []User, by User) error {
	for _, u := range team {
		if u.ID == by.ID {
			return u.Roles.Permit(auth.RoleAdmin)
		}
	}
	return auth.Forbidden(auth.RoleAdmin, 0)
}

// keepsAnAdmin refuses a change that gives the user id roles (none:
// removes them) when it would leave the team without an admin.
func keepsAnAdmin(team []User, id string, roles auth.Roles) error {
	for _, u := range team {
		if u.ID == id {
			u.Roles = roles
		}
		if u.Roles.Has(auth.RoleAdmin) {
			return nil
		}
	}
	return disburse.Errorf(disburse.CodeInvalidState, "the organisation must keep an admin: make another user admin first")
}
