package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/portal"
	"github.com/disburse/disburse/portal/backoffice"
)

// roleUsers makes a user of Acme holding each role alone, and returns a
// browser signed in as each.
func (w *world) roleUsers(t *testing.T) map[auth.Role]*browser {
	t.Helper()
	out := map[auth.Role]*browser{}
	for _, role := range auth.AllRoles() {
		email := string(role) + "@acme.example"
		_, pw, err := w.office.CreateUser(t.Context(), backoffice.NewUser{Email: email, Role: backoffice.RoleOrganisation,
			OrganisationID: w.org.ID, Roles: auth.RolesOf(role)})
		if err != nil {
			t.Fatal(err)
		}
		out[role] = w.signedIn(t, email, pw)
	}
	return out
}

// TestEveryRouteByRole walks every route of the portal's route table as
// a user of each role (docs/portal.md, "Roles"): a role the route's
// access does not permit gets 403, before the route reads anything (its
// ids here name nothing, so a role let through gets 404, or whatever the
// route answers); one it permits never gets 403 nor the sign-in page.
// An operator passes every role's route (its handlers decide). A route
// whose access is none of public, operator or a role fails here.
func TestEveryRouteByRole(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		users := w.roleUsers(t)
		operator := w.signedIn(t, operatorEmail, w.operatorPassword)
		counted := map[string]int{}
		for _, rt := range portal.Routes() {
			counted[rt.Access]++
			if rt.Public || rt.OperatorOnly || rt.Path == "/portal/signout" {
				continue
			}
			need, ok := auth.ParseRole(rt.Access)
			if !ok {
				t.Errorf("%s %s: access %q: the route table names no role for it", rt.Method, rt.Path, rt.Access)
				continue
			}
			path := strings.NewReplacer("{$}", "", "{id}", disburse.NewID()).Replace(rt.Path)
			send := func(b *browser) answer {
				if rt.Method == "GET" {
					return b.get(path)
				}
				return b.post(path, url.Values{"name": {"x"}, "roles": {"viewer"}, "email": {"someone@acme.example"}})
			}
			for _, role := range auth.AllRoles() {
				res := send(users[role])
				switch {
				case !auth.RolesOf(role).Permits(need):
					if res.status != http.StatusForbidden || !strings.Contains(res.body, "Not allowed") {
						t.Errorf("%s %s as %s: %d, want the 403 page", rt.Method, rt.Path, role, res.status)
					}
				case res.status == http.StatusForbidden || res.status == http.StatusUnauthorized || strings.HasPrefix(res.header.Get("Location"), "/portal/signin"):
					t.Errorf("%s %s as %s, which it permits: %d %s", rt.Method, rt.Path, role, res.status, res.header.Get("Location"))
				}
			}
			if res := send(operator); res.status == http.StatusForbidden {
				t.Errorf("%s %s as the operator: 403", rt.Method, rt.Path)
			}
		}
		for _, a := range []string{"public", "operator", "viewer", "maker", "approver", "admin"} {
			if counted[a] == 0 {
				t.Errorf("no route of access %s", a)
			}
		}
	})
}

// TestRouteAccessAsDocumented holds the route table's access column to
// docs/portal.md's table of who may do what: a route added without its
// line here fails, and so does a route whose access changes unseen.
func TestRouteAccessAsDocumented(t *testing.T) {
	want := map[string]string{
		"GET /portal/{$}": "viewer", "GET /portal/signin": "public", "POST /portal/signin": "public", "POST /portal/signout": "viewer",
		"GET /portal/invitation": "public", "POST /portal/invitation": "public",

		"GET /portal/organisations": "operator", "POST /portal/organisations": "operator", "GET /portal/organisations/{id}": "viewer",
		"POST /portal/organisations/{id}/settings": "operator", "POST /portal/organisations/{id}/accounts": "operator",
		"POST /portal/organisations/{id}/keys": "admin", "POST /portal/keys/{id}/revoke": "admin", "POST /portal/accounts/{id}/deposits": "operator",

		"GET /portal/users": "admin", "POST /portal/users/invitations": "admin", "POST /portal/invitations/{id}/withdraw": "admin",
		"POST /portal/users/{id}/roles": "admin", "POST /portal/users/{id}/remove": "admin",

		"GET /portal/members": "operator", "POST /portal/members": "operator", "GET /portal/notifications": "operator",
		"GET /portal/ledger": "operator", "GET /portal/audit": "viewer",

		"GET /portal/batches": "viewer", "POST /portal/batches": "maker", "GET /portal/batches/{id}": "viewer", "GET /portal/batches/{id}/payments.csv": "viewer",
		"POST /portal/batches/{id}/upload": "maker", "GET /portal/uploads/{id}": "viewer", "POST /portal/batches/{id}/submit": "maker",
		"POST /portal/batches/{id}/cancel": "maker", "GET /portal/payments/{id}": "viewer", "POST /portal/payments/{id}/delete": "maker",
		"GET /portal/batches/{id}/submit": "maker", "GET /portal/batches/{id}/cancel": "maker",
		"POST /portal/organisations/{id}/approvalThreshold": "admin",
		"GET /portal/approvals":                             "viewer", "GET /portal/approvals/{id}": "viewer",
		"POST /portal/approvals/{id}/approve": "approver", "POST /portal/approvals/{id}/reject": "approver",
	}
	got := map[string]string{}
	for _, rt := range portal.Routes() {
		got[rt.Method+" "+rt.Path] = rt.Access
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the route table's access (-docs/portal.md +table):\n%s", diff)
	}
}

// TestPagesShowWhatTheRoleMayDo: the pages show each role the forms and
// buttons it may use and none of the others (the server refuses those
// anyway: TestEveryRouteByRole).
func TestPagesShowWhatTheRoleMayDo(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		b, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "draft"})
		if err != nil {
			t.Fatal(err)
		}
		clearExisting := false
		if _, _, err := w.svc.AddPayments(ctx, w.org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting,
			Payments: []disburse.PaymentInput{{Msisdn: "254712345678", Amount: "10"}}}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.keys.CreateAPIKey(ctx, w.org.ID); err != nil {
			t.Fatal(err)
		}
		pays := []string{`action="/portal/batches/` + b.ID + `/submit"`, `action="/portal/batches/` + b.ID + `/cancel"`,
			`action="/portal/batches/` + b.ID + `/upload"`, `/delete"`}
		for role, user := range w.roleUsers(t) {
			roles := auth.RolesOf(role)
			org := user.get("/portal/organisations/" + w.org.ID)
			org.expect(t, http.StatusOK, "Acme Payouts")
			batch := user.get("/portal/batches/" + b.ID)
			batch.expect(t, http.StatusOK, "254712345678")
			shows := map[string]bool{
				"the create-batch form": strings.Contains(org.body, `action="/portal/batches"`),
				"the API keys":          strings.Contains(org.body, `id="issue-key"`) && strings.Contains(org.body, "dak_"),
				"the Users link":        strings.Contains(org.body, `href="/portal/users"`),
			}
			want := map[string]bool{
				"the create-batch form": roles.Permits(auth.RoleMaker),
				"the API keys":          roles.Permits(auth.RoleAdmin),
				"the Users link":        roles.Permits(auth.RoleAdmin),
			}
			for _, form := range pays {
				shows[form] = strings.Contains(batch.body, form)
				want[form] = roles.Permits(auth.RoleMaker)
			}
			for what := range want {
				if shows[what] != want[what] {
					t.Errorf("%s: shows %s %v, want %v", role, what, shows[what], want[what])
				}
			}
			if !strings.Contains(org.body, "("+string(role)+")") {
				t.Errorf("%s: the header does not say the user's roles", role)
			}
		}
	})
}
