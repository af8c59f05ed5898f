package portal_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/portal/backoffice"
)

var invitationLinkPattern = regexp.MustCompile(`<code id="invitation-link">([^<]+)</code>`)

// invite invites email with roles through the Users page and returns the
// link the page shows, as a path with its query.
func (b *browser) invite(email string, roles ...string) string {
	b.t.Helper()
	res := b.post("/portal/users/invitations", url.Values{"email": {email}, "roles": roles})
	res.expect(b.t, http.StatusOK, "Send this link to "+strings.ToLower(email))
	m := invitationLinkPattern.FindStringSubmatch(res.body)
	if m == nil {
		b.t.Fatalf("no invitation link shown:\n%s", res.body)
	}
	u, err := url.Parse(html.UnescapeString(m[1]))
	if err != nil || u.Path != "/portal/invitation" || !strings.HasPrefix(u.Query().Get("token"), "dpi_") {
		b.t.Fatalf("the invitation link %q: %v", m[1], err)
	}
	return u.RequestURI()
}

// accept sets password on the invitation of link and returns the answer.
func (b *browser) accept(link, password, confirm string) answer {
	b.t.Helper()
	u, _ := url.Parse(link)
	return b.post("/portal/invitation", url.Values{"token": {u.Query().Get("token")}, "password": {password}, "confirm": {confirm}})
}

// TestUsersPage: an organisation admin invites someone with roles; the
// link shows the invitation, refuses a poor password, makes the user and
// signs them in, and works once; the admin changes the user's roles,
// which apply at the user's next request, and removes them, which ends
// their session at once. Each change is audited with the admin as actor.
func TestUsersPage(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		admin := w.signedIn(t, userEmail, w.userPassword)
		admin.get("/portal/users").expect(t, http.StatusOK, userEmail, "No invitations waiting.")
		admin.post("/portal/users/invitations", url.Values{"email": {"x"}, "roles": {"maker"}}).expect(t, http.StatusBadRequest, "email must look like")
		admin.post("/portal/users/invitations", url.Values{"email": {"new@acme.example"}}).expect(t, http.StatusBadRequest, "choose at least one role")
		admin.post("/portal/users/invitations", url.Values{"email": {"new@acme.example"}, "roles": {"boss"}}).expect(t, http.StatusBadRequest, "role must be one of")
		admin.post("/portal/users/invitations", url.Values{"email": {userEmail}, "roles": {"maker"}}).expect(t, http.StatusBadRequest, "a user of the organisation already")
		link := admin.invite("New@Acme.example", "maker", "approver")
		admin.get("/portal/users").expect(t, http.StatusOK, "new@acme.example", "maker, approver")

		guest := w.browser(t)
		guest.get(link).expect(t, http.StatusOK, "Acme Payouts", "new@acme.example", "maker, approver")
		guest.get("/portal/invitation?token=dpi_nope").expect(t, http.StatusNotFound, "does not work")
		guest.accept(link, "correct horse battery", "correct horse battery staple").expect(t, http.StatusBadRequest, "the two passwords differ")
		guest.accept(link, "short", "short").expect(t, http.StatusBadRequest, "password must be 12 to 200 characters")
		res := guest.accept(link, "correct horse battery staple", "correct horse battery staple")
		res.expect(t, http.StatusSeeOther)
		if !strings.Contains(res.header.Get("Set-Cookie"), "disburse_portal=dps_") {
			t.Fatalf("accepting does not sign in: %q", res.header.Get("Set-Cookie"))
		}
		guest.get("/portal/batches").expect(t, http.StatusOK)
		guest.get("/portal/users").expect(t, http.StatusForbidden)
		w.browser(t).accept(link, "another good password", "another good password").expect(t, http.StatusNotFound, "does not work")
		w.browser(t).get(link).expect(t, http.StatusNotFound)

		ctx := t.Context()
		var u backoffice.User
		err := w.store.ReadPortal(ctx, func(tx backoffice.Tx) (err error) { u, err = tx.PortalUserByEmail(ctx, "new@acme.example"); return err })
		if err != nil || u.Roles != auth.RolesOf(auth.RoleMaker, auth.RoleApprover) || u.OrganisationID != w.org.ID {
			t.Fatalf("the user the invitation made: %+v %v", u, err)
		}
		guest.createBatch("by the new maker")

		admin.post("/portal/users/"+u.ID+"/roles", url.Values{}).expect(t, http.StatusBadRequest, "choose at least one role")
		admin.post("/portal/users/"+u.ID+"/roles", url.Values{"roles": {"viewer"}}).expect(t, http.StatusOK, "new@acme.example now has the roles viewer")
		guest.post("/portal/batches", url.Values{"name": {"no longer"}}).expect(t, http.StatusForbidden, "Not allowed")
		admin.post("/portal/users/"+u.ID+"/remove", nil).expect(t, http.StatusOK, "new@acme.example removed")
		if res := guest.get("/portal/batches"); res.status != http.StatusSeeOther || !strings.HasPrefix(res.header.Get("Location"), "/portal/signin") {
			t.Errorf("the removed user's session: %d %s", res.status, res.header.Get("Location"))
		}
		if _, _, err := w.office.SignIn(ctx, "new@acme.example", "correct horse battery staple"); err == nil {
			t.Error("the removed user still signs in")
		}

		entries, err := w.ops.Audit(ctx, w.org.ID, "", operators.PageQuery{Take: "100"})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range entries.Items {
			if strings.HasPrefix(e.Action, "portalUser.") {
				got = append(got, e.Action+" by "+e.Actor.Name)
			}
		}
		want := "portalUser.removed by " + userEmail + "; portalUser.rolesChanged by " + userEmail +
			"; portalUser.joined by new@acme.example; portalUser.invited by " + userEmail
		if strings.Join(got, "; ") != want {
			t.Errorf("the audit log, newest first:\n%s\nwant\n%s", strings.Join(got, "; "), want)
		}
	})
}

// TestInvitationEnds: a link stops working when it expires, when it is
// withdrawn, and when the email is invited again (the new link works);
// an email with a portal account elsewhere cannot use it, and the admin
// who invited it learns nothing of that account.
func TestInvitationEnds(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		admin := w.signedIn(t, userEmail, w.userPassword)
		expired := admin.invite("late@acme.example", "viewer")
		w.clock.Add(backoffice.InvitationTTL)
		w.browser(t).get(expired).expect(t, http.StatusNotFound, "does not work")
		admin = w.signedIn(t, userEmail, w.userPassword) // the old session went idle meanwhile
		admin.get("/portal/users").expect(t, http.StatusOK, "(expired)")

		first := admin.invite("twice@acme.example", "viewer")
		second := admin.invite("twice@acme.example", "maker")
		w.browser(t).get(first).expect(t, http.StatusNotFound)
		w.browser(t).get(second).expect(t, http.StatusOK, "maker")

		withdrawn := admin.invite("gone@acme.example", "viewer")
		page := admin.get("/portal/users")
		m := regexp.MustCompile(`/portal/invitations/([0-9a-f-]{36})/withdraw"><button class="danger" aria-label="Withdraw the invitation of gone@acme.example"`).FindStringSubmatch(page.body)
		if m == nil {
			t.Fatalf("no withdraw button for gone@:\n%s", page.body)
		}
		admin.post("/portal/invitations/"+m[1]+"/withdraw", nil).expect(t, http.StatusOK, "Invitation withdrawn")
		w.browser(t).get(withdrawn).expect(t, http.StatusNotFound)
		entries, err := w.ops.Audit(t.Context(), w.org.ID, "portalUser.invitationWithdrawn", operators.PageQuery{})
		if err != nil || len(entries.Items) != 1 || entries.Items[0].Subject != m[1] || entries.Items[0].Actor.Name != userEmail ||
			!strings.Contains(entries.Items[0].Details, "gone@acme.example") {
			t.Errorf("the withdrawal's audit entry: %+v %v", entries.Items, err)
		}

		elsewhere := admin.invite(otherEmail, "viewer") // a user of the other organisation
		w.browser(t).accept(elsewhere, "a good long password", "a good long password").expect(t, http.StatusBadRequest, "has a portal account already")
		if _, u, err := w.office.SignIn(t.Context(), otherEmail, w.otherPassword); err != nil || u.OrganisationID != w.other.ID {
			t.Errorf("the other organisation's user after the invitation: %+v %v", u, err)
		}
	})
}

// TestOrganisationKeepsAnAdmin: the last admin can neither remove
// themselves nor give up the admin role; with a second admin, either
// can, and two admins removing each other at once leave one.
func TestOrganisationKeepsAnAdmin(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		_, first, err := w.office.SignIn(ctx, userEmail, w.userPassword)
		if err != nil {
			t.Fatal(err)
		}
		admin := w.signedIn(t, userEmail, w.userPassword)
		admin.post("/portal/users/"+first.ID+"/remove", nil).expect(t, http.StatusUnprocessableEntity, "must keep an admin")
		admin.post("/portal/users/"+first.ID+"/roles", url.Values{"roles": {"maker"}}).expect(t, http.StatusUnprocessableEntity, "must keep an admin")

		second, _, err := w.office.CreateUser(ctx, backoffice.NewUser{Email: "second@acme.example", Role: backoffice.RoleOrganisation,
			OrganisationID: w.org.ID, Roles: auth.RolesOf(auth.RoleAdmin)})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, pair := range [][2]backoffice.User{{first, second}, {second, first}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = w.office.RemoveUser(ctx, pair[0], pair[1].ID)
			}()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("two admins removing each other: %v, %v; want one removed", errs[0], errs[1])
		}
		for _, err := range errs {
			// Refused as by an admin no longer there, or as by the last one.
			if code := disburse.ErrorCode(err); err != nil && code != disburse.CodeForbidden && code != disburse.CodeInvalidState {
				t.Errorf("the refused removal: %v", err)
			}
		}
		// The one left can now step down to maker only after naming another admin.
		left := first
		if errs[1] == nil {
			left = second
		}
		if _, err := w.office.SetRoles(ctx, left, left.ID, auth.RolesOf(auth.RoleMaker)); disburse.ErrorCode(err) != disburse.CodeInvalidState {
			t.Errorf("the last admin stepping down: %v", err)
		}
		if _, _, err := w.office.Team(ctx, backoffice.User{Role: backoffice.RoleOrganisation, OrganisationID: w.org.ID,
			Roles: auth.RolesOf(auth.RoleMaker)}); disburse.ErrorCode(err) != disburse.CodeForbidden {
			t.Errorf("a maker reading the team: %v, want forbidden", err)
		}
	})
}

// TestOperatorHasNoUsersPage: the Users page is an organisation's; an
// operator gets 404 (operators make users with disburse user create).
func TestOperatorHasNoUsersPage(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		op.get("/portal/users").expect(t, http.StatusNotFound)
		op.post("/portal/users/invitations", url.Values{"email": {"a@acme.example"}, "roles": {"viewer"}}).expect(t, http.StatusNotFound)
	})
}
