package httpapi

import (
	"fmt"
	"net/http"

	"github.com/disburse/disburse/auth"
)

// access is who may call a route: a column of the route table, so that
// each route says it where it is declared (docs/api.md section 3.1).
// An organisation route names the role it needs, which s.org checks
// against the access token's; an operator route takes an operator token
// (s.admin); the rest take none.
type access string

const (
	anyone   access = "anyone"   // no credentials: health, this document, getToken
	operator access = "operator" // an operator token (docs/api.md section 7)

	// An organisation's access token whose role permits the named one:
	// holding it, or admin; every role reads.
	viewer   = access(auth.RoleViewer)
	maker    = access(auth.RoleMaker)
	approver = access(auth.RoleApprover) // approving or rejecting a submit
	orgAdmin = access(auth.RoleAdmin)
)

// role is the organisation role a route needs, or false for a route
// that takes no access token.
func (a access) role() (auth.Role, bool) {
	if a == anyone || a == operator {
		return "", false
	}
	return auth.ParseRole(string(a))
}

// known reports whether a is one of the accesses above.
func (a access) known() bool {
	_, isRole := a.role()
	return isRole || a == anyone || a == operator
}

// routeAccess maps each route's pattern, as ServeMux gives it in
// Request.Pattern, to its access. New panics on a route whose access is
// none of the above: a route without one must not be served.
func routeAccess(routes []route) map[string]access {
	m := make(map[string]access, len(routes))
	for _, rt := range routes {
		if !rt.access.known() {
			panic(fmt.Sprintf("httpapi: route %s %s has no access (anyone, operator or a role)", rt.method, rt.path))
		}
		m[rt.method+" "+rt.path] = rt.access
	}
	return m
}

// need is the role the route serving r needs. A route that reaches s.org
// without a role in the table is a bug, answered as internal.
func (s *server) need(r *http.Request) (auth.Role, error) {
	if role, ok := s.access[r.Pattern].role(); ok {
		return role, nil
	}
	return "", fmt.Errorf("route %q takes an access token but names no role", r.Pattern)
}
