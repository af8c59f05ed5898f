package backoffice

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
)

// Invitation asks someone, by email, to join an organisation's portal
// users with Roles. Its link carries a one-time token, of which only the
// hash is kept; it works until ExpiresAt, once (docs/portal.md, "Users").
type Invitation struct {
	ID             string
	OrganisationID string
	Email          string
	Roles          auth.Roles
	Hash           string
	CreatedAt      time.Time
	ExpiresAt      time.Time
}

// Expired reports whether the invitation can no longer be used at now.
func (inv Invitation) Expired(now time.Time) bool { return !now.Before(inv.ExpiresAt) }

const (
	// InvitationTTL is how long an invitation's link works.
	InvitationTTL = 7 * 24 * time.Hour
	// invitationPrefix makes a leaked invitation token recognisable.
	invitationPrefix = "dpi_"
)

// ErrInvitation is the one answer to a link that does not work: unknown,
// used, withdrawn or expired alike, so the page tells nobody which.
var ErrInvitation = disburse.Errorf(disburse.CodeNotFound,
	"this invitation link does not work: it was used, withdrawn or has expired. Ask your organisation's admin for a new one")

// Invite invites email to by's organisation with roles, replacing an
// invitation of the same email there, and returns it with its token,
// shown this once: the admin sends the link, the service mails nobody.
// An email that is a user of the organisation already is refused; one
// that is a user elsewhere gets its invitation, which then fails when
// used, so that the admin learns nothing of other organisations.
func (s *Service) Invite(ctx context.Context, by User, email string, roles auth.Roles) (Invitation, string, error) {
	orgID, err := teamAdmin(by)
	if err != nil {
		return Invitation{}, "", err
	}
	normal := normaliseEmail(email)
	var v disburse.Validation
	if v.Text(-1, "Email", email) && !plausibleEmail(normal) {
		v.Add(-1, "Email", email, "email must look like name@example.org, at most 254 characters")
	}
	if roles == 0 {
		v.Add(-1, "Roles", "", "choose at least one role")
	}
	if err := v.Err(); err != nil {
		return Invitation{}, "", err
	}
	token := secrets.New(invitationPrefix)
	now := s.now()
	inv := Invitation{ID: disburse.NewID(), OrganisationID: orgID, Email: normal, Roles: roles, Hash: secrets.Hash(token),
		CreatedAt: now, ExpiresAt: now.Add(InvitationTTL)}
	err = s.Store.WritePortal(ctx, func(tx Tx) error {
		u, err := tx.PortalUserByEmail(ctx, normal)
		switch {
		case err == nil && u.OrganisationID == orgID:
			return disburse.Invalid("Email", normal, "this email is a user of the organisation already")
		case err != nil && !errors.Is(err, disburse.ErrNotFound):
			return err
		}
		if err := tx.InsertInvitation(ctx, inv); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(now, by.Actor(), "portalUser.invited", orgID, inv.ID,
			map[string]string{"email": normal, "roles": roles.String(), "expiresAt": inv.ExpiresAt.Format(time.RFC3339)}))
	})
	if err != nil {
		return Invitation{}, "", err
	}
	return inv, token, nil
}

// WithdrawInvitation ends an invitation of by's organisation before it is
// used; another organisation's is not found.
func (s *Service) WithdrawInvitation(ctx context.Context, by User, id string) error {
	orgID, err := teamAdmin(by)
	if err != nil {
		return err
	}
	if !disburse.ValidID(id) {
		return disburse.NotFound("invitation")
	}
	return s.Store.WritePortal(ctx, func(tx Tx) error {
		inv, err := tx.Invitation(ctx, id)
		if err == nil && inv.OrganisationID != orgID {
			err = disburse.ErrNotFound // another organisation's: not revealed
		}
		if err != nil {
			return disburse.OrNotFound(err, "invitation")
		}
		if err := tx.DeleteInvitation(ctx, id); err != nil {
			return disburse.OrNotFound(err, "invitation")
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), by.Actor(), "portalUser.invitationWithdrawn", orgID, id,
			map[string]string{"email": inv.Email}))
	})
}

// Invitation returns the invitation a token from its link names while it
// works, for the page that asks for a password; else ErrInvitation.
func (s *Service) Invitation(ctx context.Context, token string) (Invitation, error) {
	if !strings.HasPrefix(token, invitationPrefix) {
		return Invitation{}, ErrInvitation
	}
	inv, err := read(ctx, s.Store, func(tx Tx) (Invitation, error) { return tx.InvitationByHash(ctx, secrets.Hash(token)) })
	if errors.Is(err, disburse.ErrNotFound) || (err == nil && inv.Expired(s.now())) {
		return Invitation{}, ErrInvitation
	}
	return inv, err
}

// AcceptInvitation makes the user an invitation names, with password, and
// ends the invitation: its link works once. The new user is the actor of
// the audit entry. An email that became a user meanwhile is refused.
func (s *Service) AcceptInvitation(ctx context.Context, token, password string) (User, error) {
	inv, err := s.Invitation(ctx, token)
	if err != nil {
		return User{}, err
	}
	var v disburse.Validation
	checkPassword(&v, password)
	if err := v.Err(); err != nil {
		return User{}, err
	}
	u := User{ID: disburse.NewID(), Email: inv.Email, PasswordHash: s.passwordCost().hash(password), Role: RoleOrganisation,
		OrganisationID: inv.OrganisationID, Roles: inv.Roles, CreatedAt: s.now()}
	err = s.Store.WritePortal(ctx, func(tx Tx) error {
		// Deleting it first makes a second use of the link, at once, find
		// nothing: the one to delete it is the one to use it.
		inv, err := tx.InvitationByHash(ctx, inv.Hash)
		if err == nil && inv.Expired(u.CreatedAt) {
			err = disburse.ErrNotFound
		}
		if err == nil {
			err = tx.DeleteInvitation(ctx, inv.ID)
		}
		if errors.Is(err, disburse.ErrNotFound) {
			return ErrInvitation
		}
		if err != nil {
			return err
		}
		err = tx.InsertPortalUser(ctx, u)
		if errors.Is(err, disburse.ErrDuplicate) {
			return disburse.Invalid("Email", u.Email, "this email has a portal account already: sign in with it")
		}
		if err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(u.CreatedAt, u.Actor(), "portalUser.joined", u.OrganisationID, u.ID,
			map[string]string{"email": u.Email, "roles": u.Roles.String(), "invitation": inv.ID}))
	})
	if err != nil {
		return User{}, err
	}
	return u, nil
}
