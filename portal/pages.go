package portal

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// pageSize is how many rows a list page shows; the next page starts
// after the last row shown (a cursor, never an offset).
const pageSize = 100

// home sends an operator to the organisations and an organisation user
// to their organisation.
func (p *portal) home(w http.ResponseWriter, r *http.Request) error {
	u := user(r)
	if u.Role == backoffice.RoleOperator {
		http.Redirect(w, r, "/portal/organisations", http.StatusSeeOther)
	} else {
		http.Redirect(w, r, "/portal/organisations/"+u.OrganisationID, http.StatusSeeOther)
	}
	return nil
}

// actor is who the audit log names for the request's changes.
func actor(r *http.Request) disburse.Actor { return user(r).Actor() }

// ownOrganisation is id when the user may see that organisation: an
// operator any, an organisation user only their own (else not found).
func ownOrganisation(r *http.Request, id string) (string, error) {
	if scope := user(r).Scope(); scope != "" && scope != id {
		return "", notFound
	}
	return id, nil
}

func (p *portal) organisations(w http.ResponseWriter, r *http.Request) error {
	return p.organisationsPage(w, r, http.StatusOK, page{})
}

func (p *portal) organisationsPage(w http.ResponseWriter, r *http.Request, status int, pg page) error {
	q := r.URL.Query().Get("q")
	list, err := p.office.OrganisationSummaries(r.Context(), q, 500)
	if err != nil {
		return err
	}
	pg.Title, pg.Organisations, pg.Search = "Organisations", list, q
	p.render(w, r, status, "organisations", pg)
	return nil
}

func (p *portal) createOrganisation(w http.ResponseWriter, r *http.Request) error {
	form := formValues(r, "name", "currency", "reversalPeriodDays")
	in := organisations.NewOrganisation{Name: form["name"], Currency: form["currency"], ReferralsEnabled: r.PostFormValue("referralsEnabled") == "on"}
	var field map[string]string
	if form["reversalPeriodDays"] != "" {
		n, err := strconv.ParseInt(form["reversalPeriodDays"], 10, 64)
		if err != nil {
			field = map[string]string{"ReversalPeriodDays": "the reversal period is a whole number of days"}
		}
		in.ReversalPeriodDays = &n
	}
	if field == nil {
		org, _, err := organisations.CreateBy(r.Context(), p.svc, actor(r), in)
		if err == nil {
			http.Redirect(w, r, "/portal/organisations/"+org.ID, http.StatusSeeOther)
			return nil
		}
		var ok bool
		if field, _, ok = fieldErrors(err); !ok {
			return err
		}
	}
	return p.organisationsPage(w, r, http.StatusBadRequest, page{Field: field, Form: form})
}

// formValues reads the named form fields.
func formValues(r *http.Request, names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[n] = r.PostFormValue(n)
	}
	return m
}

func (p *portal) organisation(w http.ResponseWriter, r *http.Request) error {
	return p.organisationPage(w, r, http.StatusOK, page{})
}

// organisationPage draws an organisation with its accounts, settings and
// keys; pg carries a form's failures or a new key.
func (p *portal) organisationPage(w http.ResponseWriter, r *http.Request, status int, pg page) error {
	id, err := ownOrganisation(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	org, accounts, err := organisations.Get(r.Context(), p.svc, id)
	if err != nil {
		return err
	}
	var keys []auth.APIKey
	if user(r).Permits(auth.RoleAdmin) { // the keys are the admin's to see
		if keys, err = p.office.APIKeys(r.Context(), id); err != nil {
			return err
		}
	}
	pg.Title, pg.Organisation, pg.Accounts, pg.Keys, pg.AllRoles = org.Name, org, accounts, keys, auth.AllRoles()
	p.render(w, r, status, "organisation", pg)
	return nil
}

func (p *portal) updateSettings(w http.ResponseWriter, r *http.Request) error {
	form := formValues(r, "reversalPeriodDays", "approvalThreshold")
	referrals := r.PostFormValue("referralsEnabled") == "on"
	days, perr := strconv.ParseInt(strings.TrimSpace(form["reversalPeriodDays"]), 10, 64)
	if perr != nil {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Form: form,
			Field: map[string]string{"ReversalPeriodDays": "the reversal period is a whole number of days, from 1 to 3650"}})
	}
	_, _, err := organisations.UpdateSettingsBy(r.Context(), p.svc, actor(r), r.PathValue("id"), organisations.Settings{ReferralsEnabled: &referrals,
		ReversalPeriodDays: &days, ApprovalThreshold: thresholdSetting(r)})

	if field, _, ok := fieldErrors(err); ok {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Form: form, Field: field})
	}
	if err != nil {
		return err
	}
	return p.organisationPage(w, r, http.StatusOK, page{Message: "Settings saved. A new reversal period applies to batches submitted from now on."})
}

func (p *portal) createAccount(w http.ResponseWriter, r *http.Request) error {
	_, err := organisations.CreateAccountBy(r.Context(), p.svc, actor(r), r.PathValue("id"), r.PostFormValue("name"))
	if field, _, ok := fieldErrors(err); ok {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Field: field})
	}
	if err != nil {
		return err
	}
	return p.organisationPage(w, r, http.StatusOK, page{Message: "Account added."})
}

func (p *portal) deposit(w http.ResponseWriter, r *http.Request) error {
	accountID := r.PathValue("id")
	t, err := p.svc.DepositBy(r.Context(), actor(r), accountID, strings.TrimSpace(r.PostFormValue("amount")), r.PostFormValue("reference"))
	orgID, aerr := p.office.AccountOrganisation(r.Context(), accountID)
	if aerr != nil {
		return aerr
	}
	r.SetPathValue("id", orgID)
	if field, _, ok := fieldErrors(err); ok {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Field: field})
	}
	if err != nil {
		return err
	}
	cur, err := p.office.Currencies(r.Context(), orgID)
	if err != nil {
		return err
	}
	return p.organisationPage(w, r, http.StatusOK, page{Message: "Deposit of " + money(cur[orgID], t.Amount) + " recorded."})
}

func (p *portal) createKey(w http.ResponseWriter, r *http.Request) error {
	id, err := ownOrganisation(r, r.PathValue("id"))
	if err != nil {
		return err
	}
	key, secret, err := p.auth.CreateAPIKeyBy(r.Context(), actor(r), id, auth.Role(r.PostFormValue("role")))
	if field, _, ok := fieldErrors(err); ok {
		return p.organisationPage(w, r, http.StatusBadRequest, page{Field: field})
	}
	if err != nil {
		return err
	}
	return p.organisationPage(w, r, http.StatusOK, page{NewKey: secret, Message: "Key issued, with the role " + string(key.Role) + "."})
}

func (p *portal) revokeKey(w http.ResponseWriter, r *http.Request) error {
	k, err := p.office.ScopedAPIKey(r.Context(), user(r).Scope(), r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := p.auth.RevokeAPIKeyBy(r.Context(), actor(r), k.ID); err != nil {
		return err
	}
	r.SetPathValue("id", k.OrganisationID)
	return p.organisationPage(w, r, http.StatusOK, page{Message: "Key " + k.Prefix + "… revoked: its tokens stopped working at once."})
}

func (p *portal) members(w http.ResponseWriter, r *http.Request) error {
	pg := page{Title: "Members"}
	if msisdn := strings.TrimSpace(r.URL.Query().Get("msisdn")); msisdn != "" {
		pg.Search = msisdn
		st, err := p.svc.Statement(r.Context(), msisdn)
		if field, _, ok := fieldErrors(err); ok {
			pg.Field = field
		} else if err != nil {
			return err
		} else {
			pg.Statement = &st
		}
	}
	p.render(w, r, http.StatusOK, "members", pg)
	return nil
}

func (p *portal) registerMember(w http.ResponseWriter, r *http.Request) error {
	form := formValues(r, "msisdn", "firstname", "lastname")
	m, created, err := p.svc.RegisterMemberBy(r.Context(), actor(r), disburse.Member{
		Msisdn: strings.TrimSpace(form["msisdn"]), Firstname: form["firstname"], Lastname: form["lastname"], AppInstalled: r.PostFormValue("appInstalled") == "on",
	})
	if field, _, ok := fieldErrors(err); ok {
		if msg, ok := field["Msisdn"]; ok {
			field["RegisterMsisdn"] = msg
			delete(field, "Msisdn")
		}
		p.render(w, r, http.StatusBadRequest, "members", page{Title: "Members", Field: field, Form: form})
		return nil
	}
	if err != nil {
		return err
	}
	msg := m.Msisdn + " registered; whatever was pending to it is settled."
	if !created {
		msg = m.Msisdn + " was a member already; nothing changed."
	}
	st, err := p.svc.Statement(r.Context(), m.Msisdn)
	if err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "members", page{Title: "Members", Message: msg, Search: m.Msisdn, Statement: &st})
	return nil
}

// notifications pages the outbox, filtered by recipient, status and
// channel, from the cursor ?after= (the last notification of the page
// before): newest first, or the pending ones in the order they fall due.
func (p *portal) notifications(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	f := backoffice.NotificationFilter{Recipient: strings.TrimSpace(q.Get("recipient")), Status: disburse.NotificationStatus(q.Get("status")),
		Channel: disburse.Channel(q.Get("channel")), After: q.Get("after"), Limit: pageSize + 1}
	pg := page{Title: "Notifications", Filter: map[string]string{"recipient": f.Recipient, "status": string(f.Status), "channel": string(f.Channel), "after": f.After}}
	list, err := p.office.NotificationsPage(r.Context(), f)
	if field, _, ok := fieldErrors(err); ok {
		pg.Field = field
		p.render(w, r, http.StatusBadRequest, "notifications", pg)
		return nil
	}
	if err != nil {
		return err
	}
	pg.Notifications = list
	if len(list) > pageSize {
		pg.Notifications, pg.NextCursor = list[:pageSize], list[pageSize-1].ID
	}
	p.render(w, r, http.StatusOK, "notifications", pg)
	return nil
}

func (p *portal) ledger(w http.ResponseWriter, r *http.Request) error {
	report, err := p.svc.CheckLedger(r.Context())
	if err != nil {
		return err
	}
	p.render(w, r, http.StatusOK, "ledger", page{Title: "Ledger check", Ledger: &report, CheckedAt: time.Now()})
	return nil
}

// auditLog shows the log: all of it to an operator, an organisation's own
// entries to its users; one action's when the filter names one.
func (p *portal) auditLog(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	action := q.Get("action")
	entries, err := p.operators.Audit(r.Context(), user(r).Scope(), action,
		operators.PageQuery{After: q.Get("after"), Take: strconv.Itoa(pageSize)})
	if disburse.ErrorCode(err) == disburse.CodeInvalid {
		return notFound
	}
	if err != nil {
		return err
	}
	pg := page{Title: "Audit log", Audit: entries.Items, NextCursor: entries.NextCursor,
		Filter: map[string]string{"action": action}, Actions: operators.Actions}
	p.render(w, r, http.StatusOK, "audit", pg)
	return nil
}
