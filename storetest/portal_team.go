package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/portal/backoffice"
)

// testOrganisationUsers: an organisation's users by email, its own only;
// their roles replaced; a user deleted with their sessions.
func testOrganisationUsers(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	zoe := newPortalUser(w, "zoe@example.org", backoffice.RoleOrganisation)
	ann := newPortalUser(w, "ann@example.org", backoffice.RoleOrganisation)
	ann.Roles = auth.RolesOf(auth.RoleAdmin)
	stranger := newPortalUser(other, "x@example.org", backoffice.RoleOrganisation)
	op := newPortalUser(w, "op@example.org", backoffice.RoleOperator)
	sess := backoffice.Session{Hash: secrets.Hash("dps_zoe"), UserID: zoe.ID, CreatedAt: t0, LastSeenAt: t0, ExpiresAt: at(time.Hour)}
	writePortal(t, s, func(tx backoffice.Tx) error {
		return errors.Join(tx.InsertPortalUser(ctx, zoe), tx.InsertPortalUser(ctx, ann), tx.InsertPortalUser(ctx, stranger),
			tx.InsertPortalUser(ctx, op), tx.InsertPortalSession(ctx, sess))
	})
	same(t, "OrganisationUsers", []backoffice.User{ann, zoe}, getPortal(t, s, func(tx backoffice.Tx) ([]backoffice.User, error) {
		return tx.OrganisationUsers(ctx, w.org.ID)
	}))
	var locked []backoffice.User
	writePortal(t, s, func(tx backoffice.Tx) (err error) { locked, err = tx.LockOrganisationUsers(ctx, w.org.ID); return err })
	same(t, "LockOrganisationUsers", []backoffice.User{ann, zoe}, locked)

	writePortal(t, s, func(tx backoffice.Tx) error {
		return tx.SetPortalUserRoles(ctx, zoe.ID, auth.RolesOf(auth.RoleViewer))
	})
	zoe.Roles = auth.RolesOf(auth.RoleViewer)
	same(t, "PortalUser after SetPortalUserRoles", zoe, getPortal(t, s, func(tx backoffice.Tx) (backoffice.User, error) { return tx.PortalUser(ctx, zoe.ID) }))
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.SetPortalUserRoles(ctx, disburse.NewID(), zoe.Roles) }); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("SetPortalUserRoles of nobody: %v, want ErrNotFound", err)
	}

	writePortal(t, s, func(tx backoffice.Tx) error { return tx.DeletePortalUser(ctx, zoe.ID) })
	notFoundPortal(t, s, "a deleted user", func(tx backoffice.Tx) error { _, err := tx.PortalUser(ctx, zoe.ID); return err })
	notFoundPortal(t, s, "a deleted user's session", func(tx backoffice.Tx) error { _, err := tx.PortalSession(ctx, sess.Hash); return err })
	same(t, "OrganisationUsers after DeletePortalUser", []backoffice.User{ann}, getPortal(t, s, func(tx backoffice.Tx) ([]backoffice.User, error) {
		return tx.OrganisationUsers(ctx, w.org.ID)
	}))
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.DeletePortalUser(ctx, zoe.ID) }); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("DeletePortalUser twice: %v, want ErrNotFound", err)
	}
}

// testInvitations: by id and by hash; an organisation's newest first;
// inviting an email again replaces its invitation in that organisation
// only; deleting one twice is ErrNotFound.
func testInvitations(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	invite := func(org, email, token string, created time.Duration) backoffice.Invitation {
		return backoffice.Invitation{ID: disburse.NewID(), OrganisationID: org, Email: email, Roles: auth.RolesOf(auth.RoleViewer, auth.RoleAdmin),
			Hash: secrets.Hash(token), CreatedAt: at(created), ExpiresAt: at(created + time.Hour)}
	}
	first := invite(w.org.ID, "a@example.org", "dpi_a", 0)
	second := invite(w.org.ID, "b@example.org", "dpi_b", time.Minute)
	elsewhere := invite(other.org.ID, "a@example.org", "dpi_c", 0) // the same email in another organisation
	writePortal(t, s, func(tx backoffice.Tx) error {
		return errors.Join(tx.InsertInvitation(ctx, first), tx.InsertInvitation(ctx, second), tx.InsertInvitation(ctx, elsewhere))
	})
	same(t, "Invitation", first, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Invitation, error) { return tx.Invitation(ctx, first.ID) }))
	same(t, "InvitationByHash", second, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Invitation, error) {
		return tx.InvitationByHash(ctx, second.Hash)
	}))
	list := func() []backoffice.Invitation {
		return getPortal(t, s, func(tx backoffice.Tx) ([]backoffice.Invitation, error) { return tx.Invitations(ctx, w.org.ID) })
	}
	same(t, "Invitations", []backoffice.Invitation{second, first}, list())

	again := invite(w.org.ID, "a@example.org", "dpi_again", 2*time.Minute)
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.InsertInvitation(ctx, again) })
	same(t, "Invitations after inviting a@ again", []backoffice.Invitation{again, second}, list())
	notFoundPortal(t, s, "the replaced invitation", func(tx backoffice.Tx) error { _, err := tx.InvitationByHash(ctx, first.Hash); return err })
	same(t, "the other organisation's", elsewhere, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Invitation, error) {
		return tx.Invitation(ctx, elsewhere.ID)
	}))

	writePortal(t, s, func(tx backoffice.Tx) error { return tx.DeleteInvitation(ctx, second.ID) })
	same(t, "Invitations after DeleteInvitation", []backoffice.Invitation{again}, list())
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.DeleteInvitation(ctx, second.ID) }); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("DeleteInvitation twice: %v, want ErrNotFound", err)
	}
	dup := invite(other.org.ID, "z@example.org", "dpi_c", 0) // dpi_c's hash is taken
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.InsertInvitation(ctx, dup) }); !errors.Is(err, disburse.ErrDuplicate) {
		t.Errorf("an invitation with a hash taken: %v, want ErrDuplicate", err)
	}
}
