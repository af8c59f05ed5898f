package httpapi_test

import (
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
)

// TestE2ERoleOfEveryRoute walks every route of the route table with an
// access token of each role (docs/api.md section 3.1): a role the route's
// access column does not permit gets 403 forbidden, before the route
// reads anything (its ids here name nothing, so a role let through gets
// 404, or whatever the route answers); one it permits never gets 401 or
// 403. A route whose access is none of anyone, operator or a role fails
// here. Operator routes refuse every access token (401) and take the
// operator's; the rest take no credentials.
func TestE2ERoleOfEveryRoute(t *testing.T) { eachStore(t, testE2ERoleOfEveryRoute) }

func testE2ERoleOfEveryRoute(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Roles", false, "")
	tokens := map[auth.Role]string{}
	for _, role := range auth.AllRoles() {
		tokens[role] = h.token(h.createKey(o.ID, string(role)))
	}
	counted := map[string]int{}
	for _, rt := range httpapi.Routes() {
		counted[rt.Access]++
		path := strings.NewReplacer("{id}", disburse.NewID(), "{deliveryId}", disburse.NewID(), "{msisdn}", member).Replace(rt.Path)
		var body any
		if rt.Method == "POST" || rt.Method == "PUT" {
			body = `{}`
		}
		t.Run(rt.Method+" "+rt.Path, func(t *testing.T) {
			switch rt.Access {
			case "anyone":
				if r := h.do(rt.Method, path, "", body); r.status == 401 || r.status == 403 {
					t.Errorf("without credentials: %d %s", r.status, r.body)
				}
			case "operator":
				for _, token := range tokens {
					problem(t, h.do(rt.Method, path, token, body), 401, "unauthorized")
				}
				if r := h.do(rt.Method, path, adminToken, body); r.status == 401 || r.status == 403 {
					t.Errorf("with the operator's token: %d %s", r.status, r.body)
				}
			default:
				need, ok := auth.ParseRole(rt.Access)
				if !ok {
					t.Fatalf("access %q: the route table names no role for this route", rt.Access)
				}
				problem(t, h.do(rt.Method, path, "", body), 401, "unauthorized")
				problem(t, h.do(rt.Method, path, adminToken, body), 401, "unauthorized") // an operator token is no access token
				for _, role := range auth.AllRoles() {
					r := h.do(rt.Method, path, tokens[role], body)
					if auth.RolesOf(role).Permits(need) {
						if r.status == 401 || r.status == 403 {
							t.Errorf("%s, which the route permits: %d %s", role, r.status, r.body)
						}
						continue
					}
					p := problem(t, r, 403, "forbidden")
					if d, _ := p["detail"].(string); !strings.Contains(d, string(need)) || !strings.Contains(d, string(role)) {
						t.Errorf("%s: the detail %q names neither the role needed nor the one held", role, d)
					}
				}
			}
		})
	}
	// Every kind of access is walked, so that the test cannot pass by
	// walking none.
	for _, a := range []string{"anyone", "operator", "viewer", "maker", "admin"} {
		if counted[a] == 0 {
			t.Errorf("no route of access %s", a)
		}
	}
}

// TestE2EAPIKeyRole: a key's role is chosen when it is issued (admin
// without a body or a role), shown in the list of keys, and carried by
// its access tokens; an unknown role is a 400 on Role that issues
// nothing. A forbidden call changes nothing and leaves its
// Idempotency-Key unused.
func TestE2EAPIKeyRole(t *testing.T) { eachStore(t, testE2EAPIKeyRole) }

func testE2EAPIKeyRole(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	o := h.createOrg("Keys", false, "100.00") // its key: no body, so admin
	path := "/admin/organisations/" + o.ID + "/apiKeys"
	viewerKey := h.createKey(o.ID, "viewer")
	ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](t, h.do("POST", path, adminToken, `{}`), 201)
	wantFailures(t, h.do("POST", path, adminToken, `{"role":"boss"}`), failure{FieldName: "Role", FieldValue: "boss"})
	wantFailures(t, h.do("POST", path, adminToken, `{"role":"Admin"}`), failure{FieldName: "Role", FieldValue: "Admin"})
	wantFailures(t, h.do("POST", path, adminToken, `{"role":5}`), failure{FieldName: "Role", FieldValue: "5"})
	wantFailures(t, h.do("POST", path, adminToken, `[]`), failure{FieldName: "Body", FieldValue: "array"})
	var roles []string
	for _, k := range ok[[]APIKeyInfo](t, h.do("GET", path, adminToken, nil), 200) {
		roles = append(roles, k.Role)
	}
	if got := strings.Join(roles, ","); got != "admin,viewer,admin" { // newest first; the 400s issued nothing
		t.Errorf("the keys' roles, newest first: %s", got)
	}
	audit := ok[map[string]any](t, h.do("GET", "/admin/audit?action=apiKey.issued&organisationId="+o.ID, adminToken, nil), 200)
	roles = nil
	for _, e := range audit["entries"].([]any) {
		role, _ := e.(map[string]any)["details"].(map[string]any)["role"].(string)
		roles = append(roles, role)
	}
	if got := strings.Join(roles, ","); got != "admin,viewer,admin" {
		t.Errorf("the roles apiKey.issued names, newest first: %s", got)
	}

	viewer := h.token(viewerKey)
	b := h.createBatch(o, "to submit")
	ok[Batch](t, h.addPayments(o, b.ID, false, pay(member, "10")), 200)
	problem(t, h.do("POST", "/batches/"+b.ID+"/submit", viewer, nil), 403, "forbidden")
	problem(t, h.do("POST", "/batches/"+b.ID+"/cancel", viewer, nil), 403, "forbidden")
	if got := ok[Batch](t, h.do("GET", "/batches/"+b.ID, viewer, nil), 200); got.StatusCode != "DRAFT" || got.Summary.PaymentsCount != 1 {
		t.Errorf("the batch after the viewer's refused submit and cancel: %+v", got)
	}

	// Refused before the key is claimed: a maker's request with the same
	// key runs, rather than replay the 403.
	send := func(token string) response {
		return h.sendKey("POST", "/batches", token, "role-test-1", `{"name":"keyed"}`)
	}
	problem(t, send(viewer), 403, "forbidden")
	if r := send(o.token); r.status != 201 || r.header.Get("Idempotent-Replayed") != "" {
		t.Errorf("the admin's request with the key the viewer was refused: %d %s", r.status, r.body)
	}
}

// createKey issues an API key of role to the organisation id and returns it.
func (h *harness) createKey(id, role string) string {
	h.t.Helper()
	return ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](h.t, h.do("POST", "/admin/organisations/"+id+"/apiKeys", adminToken, map[string]string{"role": role}), 201).APIKey
}
