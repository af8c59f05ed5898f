package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

func TestSignIn(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.browser(t)
		b.get("/portal/organisations").expect(t, http.StatusSeeOther)

		wrong := b.post("/portal/signin", url.Values{"email": {operatorEmail}, "password": {"not the password"}})
		unknown := b.post("/portal/signin", url.Values{"email": {"nobody@example.org"}, "password": {"not the password"}})
		wrong.expect(t, http.StatusUnauthorized, "The email or the password is wrong.")
		// The page shows the email typed back in its field; apart from it, one answer.
		if strings.ReplaceAll(wrong.body, operatorEmail, "") != strings.ReplaceAll(unknown.body, "nobody@example.org", "") || wrong.status != unknown.status {
			t.Errorf("an unknown email and a wrong password answer differently:\n%s\n---\n%s", wrong.body, unknown.body)
		}

		ok := b.post("/portal/signin", url.Values{"email": {"OP@example.org "}, "password": {w.operatorPassword}})
		ok.expect(t, http.StatusSeeOther)
		cookie := ok.header.Get("Set-Cookie")
		for _, attr := range []string{"HttpOnly", "SameSite=Lax", "Path=/portal/"} {
			if !strings.Contains(cookie, attr) {
				t.Errorf("session cookie %q lacks %s", cookie, attr)
			}
		}
		if strings.Contains(cookie, "Secure") {
			t.Errorf("cookie over plain HTTP is Secure: %q", cookie)
		}
		page := b.get("/portal/organisations")
		page.expect(t, http.StatusOK, "Acme Payouts", "Other Org")
		csp := page.header.Get("Content-Security-Policy")
		if !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
			t.Errorf("Content-Security-Policy %q is not strict", csp)
		}
		if strings.Contains(page.body, "<script>") {
			t.Error("a page holds an inline script")
		}
		b.get("/portal/static/htmx.min.js").expect(t, http.StatusOK, "htmx")
	})
}

func TestSignOutEndsSessionAtOnce(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		u, _ := url.Parse(w.srv.URL + "/portal/")
		stolen := b.c.Jar.Cookies(u) // a copy of the cookie, as another tab or replica would hold
		b.get("/portal/organisations/"+w.org.ID).expect(t, http.StatusOK, "Acme Payouts")
		b.post("/portal/signout", nil).expect(t, http.StatusSeeOther)
		b.get("/portal/organisations/"+w.org.ID).expect(t, http.StatusSeeOther)

		replay := w.browser(t)
		replay.c.Jar.SetCookies(u, stolen)
		replay.get("/portal/organisations/"+w.org.ID).expect(t, http.StatusSeeOther)
	})
}

func TestSessionExpiry(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		page := "/portal/organisations/" + w.org.ID
		// Used every 20 minutes, the session lives past the idle timeout...
		for range 3 {
			w.clock.Add(20 * time.Minute)
			b.get(page).expect(t, http.StatusOK)
		}
		// ...but idle longer than it, it ends.
		w.clock.Add(backoffice.IdleTimeout + time.Second)
		b.get(page).expect(t, http.StatusSeeOther)

		// Used all the time, it still ends at its expiry.
		b = w.signedIn(t, userEmail, w.userPassword)
		for elapsed := time.Duration(0); elapsed < backoffice.SessionTTL-20*time.Minute; elapsed += 20 * time.Minute {
			w.clock.Add(20 * time.Minute)
			b.get(page).expect(t, http.StatusOK)
		}
		w.clock.Add(20 * time.Minute)
		b.get(page).expect(t, http.StatusSeeOther)

		// Sessions nobody comes back to are purged by the worker's sweep.
		w.signedIn(t, userEmail, w.userPassword)
		w.signedIn(t, operatorEmail, w.operatorPassword)
		if n, err := w.office.PurgeSessions(t.Context()); err != nil || n != 0 {
			t.Errorf("purge of live sessions: %d, %v", n, err)
		}
		w.clock.Add(backoffice.IdleTimeout)
		if n, err := w.office.PurgeSessions(t.Context()); err != nil || n != 2 {
			t.Errorf("purge of idle sessions: %d, %v; want 2", n, err)
		}
	})
}

func TestCrossSiteRequestRefused(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, operatorEmail, w.operatorPassword)
		form := url.Values{"reversalPeriodDays": {"7"}}
		b.origin = "https://evil.example"
		req, _ := http.NewRequest("POST", w.srv.URL+"/portal/organisations/"+w.org.ID+"/settings", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		b.do(req).expect(t, http.StatusForbidden)
		req, _ = http.NewRequest("POST", w.srv.URL+"/portal/organisations/"+w.org.ID+"/settings", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		b.do(req).expect(t, http.StatusForbidden)
		org, _, _ := organisations.Get(t.Context(), w.svc, w.org.ID)
		if org.ReversalPeriod != disburse.DefaultReversalPeriod {
			t.Errorf("a refused cross-site request changed the reversal period to %v", org.ReversalPeriod)
		}
	})
}

func TestSignInRateLimited(t *testing.T) {
	w := newWorld(t, openSQLite)
	b := w.browser(t)
	limited := 0
	for range 8 {
		res := b.post("/portal/signin", url.Values{"email": {userEmail}, "password": {"wrong password!"}})
		if res.status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("eight failed sign-ins for one email in a row were never limited")
	}
	// Even the right password waits while the email is limited.
	b.post("/portal/signin", url.Values{"email": {userEmail}, "password": {w.userPassword}}).expect(t, http.StatusTooManyRequests)
	// Another email from the same client is still let in.
	w.browser(t).post("/portal/signin", url.Values{"email": {operatorEmail}, "password": {w.operatorPassword}}).expect(t, http.StatusSeeOther)
}

func TestOperatorSettingsAndAudit(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, operatorEmail, w.operatorPassword)
		path := "/portal/organisations/" + w.org.ID
		b.post(path+"/settings", url.Values{"reversalPeriodDays": {"0"}}).expect(t, http.StatusBadRequest, "reversal period must be positive")
		b.post(path+"/settings", url.Values{"reversalPeriodDays": {"seven"}}).expect(t, http.StatusBadRequest, "whole number of days")
		b.post(path+"/settings", url.Values{"reversalPeriodDays": {"7"}, "referralsEnabled": {"on"}}).expect(t, http.StatusOK, "Settings saved", "submitted from now on")
		org, _, _ := organisations.Get(t.Context(), w.svc, w.org.ID)
		if org.ReversalPeriod != 7*24*time.Hour || !org.ReferralsEnabled {
			t.Errorf("settings not saved: %v, referrals %v", org.ReversalPeriod, org.ReferralsEnabled)
		}
		b.post("/portal/accounts/"+w.orgAccount.ID+"/deposits", url.Values{"amount": {"1.001"}}).expect(t, http.StatusBadRequest, "at most 2 decimal places")
		b.post("/portal/accounts/"+w.orgAccount.ID+"/deposits", url.Values{"amount": {"250.50"}, "reference": {"wire 42"}}).expect(t, http.StatusOK, "Deposit of KES 250.50 recorded", "KES 250.50")
		key := b.post(path+"/keys", nil)
		key.expect(t, http.StatusOK, "shown this once", "dak_")
		b.post("/portal/organisations", url.Values{"name": {""}}).expect(t, http.StatusBadRequest, "name is required")
		b.post("/portal/organisations", url.Values{"name": {"Brand New"}, "reversalPeriodDays": {"30"}}).expect(t, http.StatusSeeOther)
		b.get("/portal/organisations?q=brand").expect(t, http.StatusOK, "Brand New")

		audit := b.get("/portal/audit")
		audit.expect(t, http.StatusOK, "settings.changed", "account.deposited", "apiKey.issued", "organisation.created", operatorEmail,
			`&#34;reversalPeriodSeconds&#34;:5184000`, `&#34;reversalPeriodSeconds&#34;:604800`)
		// The operator API writes the log too, naming itself.
		req, _ := http.NewRequest("POST", w.srv.URL+"/admin/members", strings.NewReader(`{"msisdn":"254712345678"}`))
		req.Header.Set("Authorization", "Bearer "+adminToken)
		b.do(req).expect(t, http.StatusCreated)
		b.get("/portal/audit").expect(t, http.StatusOK, "member.registered", "bootstrap", "operatorToken")
		// The filter by action shows that action's entries alone.
		deposits := b.get("/portal/audit?action=account.deposited")
		deposits.expect(t, http.StatusOK, "account.deposited", `<option selected>account.deposited</option>`)
		if strings.Contains(deposits.body, "member.registered</td>") || strings.Contains(deposits.body, "apiKey.issued</td>") {
			t.Errorf("the log of deposits shows other actions:\n%s", deposits.body)
		}
	})
}

// TestSignInAudited: every sign-in, failed or not, is in the audit log,
// as by the user the email names (docs/portal.md "Audit log").
func TestSignInAudited(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		w.browser(t).post("/portal/signin", url.Values{"email": {userEmail}, "password": {"wrong password!"}}).expect(t, http.StatusUnauthorized)
		w.browser(t).post("/portal/signin", url.Values{"email": {"nobody@example.org"}, "password": {"a password"}}).expect(t, http.StatusUnauthorized)
		w.signedIn(t, userEmail, w.userPassword)
		page, err := w.ops.Audit(t.Context(), "", "", operators.PageQuery{Take: "3"})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != 3 {
			t.Fatalf("%d entries, want 3: %+v", len(page.Items), page.Items)
		}
		in, unknown, wrong := page.Items[0], page.Items[1], page.Items[2]
		user := disburse.Actor{Type: disburse.ActorPortalUser, ID: in.Subject, Name: userEmail}
		if in.Action != "portal.signedIn" || in.Actor != user || in.OrganisationID != w.org.ID {
			t.Errorf("the sign-in: %+v", in)
		}
		if unknown.Action != "portal.signInFailed" || unknown.Actor != (disburse.Actor{Type: disburse.ActorPortalUser, Name: "nobody@example.org"}) ||
			unknown.OrganisationID != "" || unknown.Subject != "" {
			t.Errorf("the unknown email's: %+v", unknown)
		}
		if wrong.Action != "portal.signInFailed" || wrong.Actor != user || wrong.OrganisationID != w.org.ID || wrong.Subject != in.Subject {
			t.Errorf("the wrong password's: %+v", wrong)
		}
	})
}
