package portal

import (
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// The Users page: an organisation's admins list its users and
// invitations, invite, change roles and remove (docs/portal.md, "Users").
// The rules, the audit entries included, are backoffice's (team.go,
// invitation.go); an operator has no Users page (404).

func (p *portal) users(w http.ResponseWriter, r *http.Request) error {
	return p.usersPage(w, r, http.StatusOK, page{})
}

// usersPage draws the organisation's users and invitations; pg carries
// a form's failures, a message or a new invitation's link.
func (p *portal) usersPage(w http.ResponseWriter, r *http.Request, status int, pg page) error {
	team, invitations, err := p.office.Team(r.Context(), user(r))
	if err != nil {
		return err
	}
	pg.Title, pg.Team, pg.Invitations, pg.AllRoles, pg.Now = "Users", team, invitations, auth.AllRoles(), p.office.Clock()
	p.render(w, r, status, "users", pg)
	return nil
}

// formRoles reads the form's role boxes.
func formRoles(r *http.Request) (auth.Roles, error) {
	_ = r.ParseForm()
	return auth.ParseRoles("Roles", strings.Join(r.PostForm["roles"], ","))
}

// invite shows the new invitation's link once, for the admin to send.
func (p *portal) invite(w http.ResponseWriter, r *http.Request) error {
	form := formValues(r, "email")
	roles, err := formRoles(r)
	var inv backoffice.Invitation
	var token string
	if err == nil {
		inv, token, err = p.office.Invite(r.Context(), user(r), form["email"], roles)
	}
	if field, _, ok := fieldErrors(err); ok {
		return p.usersPage(w, r, http.StatusBadRequest, page{Field: field, Form: form})
	}
	if err != nil {
		return err
	}
	return p.usersPage(w, r, http.StatusOK, page{Invitation: &inv, InvitationLink: invitationLink(r, token),
		Message: "Invitation made for " + inv.Email + "."})
}

// invitationLink is the address of the page that takes an invitation's
// token, on the host the admin reached the portal by.
func invitationLink(r *http.Request, token string) string {
	scheme := "http"
	if clientaddr.HTTPS(r) {
		scheme = "https"
	}
	u := url.URL{Scheme: scheme, Host: r.Host, Path: "/portal/invitation", RawQuery: url.Values{"token": {token}}.Encode()}
	return u.String()
}

func (p *portal) withdrawInvitation(w http.ResponseWriter, r *http.Request) error {
	if err := p.office.WithdrawInvitation(r.Context(), user(r), r.PathValue("id")); err != nil {
		return err
	}
	return p.usersPage(w, r, http.StatusOK, page{Message: "Invitation withdrawn: its link no longer works."})
}

func (p *portal) setRoles(w http.ResponseWriter, r *http.Request) error {
	roles, err := formRoles(r)
	var u backoffice.User
	if err == nil {
		u, err = p.office.SetRoles(r.Context(), user(r), r.PathValue("id"), roles)
	}
	if field, _, ok := fieldErrors(err); ok {
		return p.usersPage(w, r, http.StatusBadRequest, page{Errors: []string{"Roles not changed: " + field["Roles"] + "."}})
	}
	if err != nil {
		return err
	}
	if u.ID == user(r).ID && !roles.Has(auth.RoleAdmin) {
		// No longer an admin: this page is not theirs any more.
		http.Redirect(w, r, Prefix, http.StatusSeeOther)
		return nil
	}
	return p.usersPage(w, r, http.StatusOK, page{Message: u.Email + " now has the roles " + strings.ReplaceAll(roles.String(), ",", ", ") + "."})
}

func (p *portal) removeUser(w http.ResponseWriter, r *http.Request) error {
	u, err := p.office.RemoveUser(r.Context(), user(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	if u.ID == user(r).ID {
		// Their own session ended with them.
		clearCookie(w, r)
		http.Redirect(w, r, "/portal/signin", http.StatusSeeOther)
		return nil
	}
	return p.usersPage(w, r, http.StatusOK, page{Message: u.Email + " removed; their sessions ended at once."})
}

// invitationPage asks the invited person for a password. A link that
// does not work says so, and nothing of whom it was for.
func (p *portal) invitationPage(w http.ResponseWriter, r *http.Request) error {
	return p.invitationForm(w, r, http.StatusOK, r.URL.Query().Get("token"), page{})
}

// invitationForm draws the password form for the invitation token names.
func (p *portal) invitationForm(w http.ResponseWriter, r *http.Request, status int, token string, pg page) error {
	inv, err := p.office.Invitation(r.Context(), token)
	if errors.Is(err, backoffice.ErrInvitation) {
		p.render(w, r, http.StatusNotFound, "message", page{Title: "Invitation", Message: backoffice.ErrInvitation.Message + "."})
		return nil
	}
	if err != nil {
		return err
	}
	org, _, err := organisations.Get(r.Context(), p.svc, inv.OrganisationID)
	if err != nil {
		return err
	}
	pg.Title, pg.Invitation, pg.Organisation, pg.Form = "Join "+org.Name, &inv, org, map[string]string{"token": token}
	p.render(w, r, status, "invitation", pg)
	return nil
}

// acceptInvitation makes the user with the password chosen and signs
// them in. Every use spends the client address's budget, as a sign-in
// does, before the database is asked.
func (p *portal) acceptInvitation(w http.ResponseWriter, r *http.Request) error {
	if !p.spendAddress(w, r, "message", page{Title: "Invitation"}) {
		return nil
	}
	token, password := r.PostFormValue("token"), r.PostFormValue("password")
	if password != r.PostFormValue("confirm") {
		return p.invitationForm(w, r, http.StatusBadRequest, token, page{Field: map[string]string{"Confirm": "the two passwords differ"}})
	}
	u, err := p.office.AcceptInvitation(r.Context(), token, password)
	if field, _, ok := fieldErrors(err); ok {
		return p.invitationForm(w, r, http.StatusBadRequest, token, page{Field: field})
	}
	if errors.Is(err, backoffice.ErrInvitation) {
		return p.invitationForm(w, r, http.StatusNotFound, token, page{})
	}
	if err != nil {
		return err
	}
	secret, _, err := p.office.SignIn(r.Context(), u.Email, password)
	if err != nil {
		return err
	}
	setSession(w, r, secret)
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
	return nil
}
