package auth

import (
	"strings"

	"github.com/disburse/disburse"
)

// Role is what a credential of an organisation may do: an API key has
// one, a portal user of an organisation one or more (docs/api.md section
// 3.1). Every role reads.
type Role string

const (
	RoleViewer   Role = "viewer"   // reads
	RoleMaker    Role = "maker"    // creates and updates batches, adds and deletes payments, submits and cancels; reads
	RoleApprover Role = "approver" // approves or rejects submits; reads
	RoleAdmin    Role = "admin"    // everything, and the organisation's portal users, API keys and webhooks
)

// AllRoles lists every role, in the order the docs and the portal show them.
func AllRoles() []Role { return []Role{RoleViewer, RoleMaker, RoleApprover, RoleAdmin} }

// rolesMessage is the failure of a name that is no role.
const rolesMessage = "role must be one of viewer, maker, approver, admin"

// ParseRole returns the role named name, or false.
func ParseRole(name string) (Role, bool) {
	for _, r := range AllRoles() {
		if string(r) == name {
			return r, true
		}
	}
	return "", false
}

// CheckRole is the failure, on field, of a name that is no role.
func CheckRole(field, name string) error {
	if _, ok := ParseRole(name); !ok {
		return disburse.Invalid(field, name, rolesMessage)
	}
	return nil
}

// Roles is a set of roles; the zero value holds none.
type Roles uint8

// RolesOf is the set of rs.
func RolesOf(rs ...Role) Roles {
	var set Roles
	for _, r := range rs {
		for i, known := range AllRoles() {
			if r == known {
				set |= 1 << i
			}
		}
	}
	return set
}

// Has reports whether the set holds r.
func (rs Roles) Has(r Role) bool { return r != "" && rs&RolesOf(r) != 0 }

// Permits reports whether a holder of rs may do what needs the role
// need: holding it, or admin, which may do everything; and every role
// reads, so any role permits what needs viewer (docs/api.md section 3.1).
func (rs Roles) Permits(need Role) bool {
	return rs.Has(need) || rs.Has(RoleAdmin) || (need == RoleViewer && rs != 0)
}

// List is the set's roles in AllRoles' order.
func (rs Roles) List() []Role {
	var out []Role
	for _, r := range AllRoles() {
		if rs.Has(r) {
			out = append(out, r)
		}
	}
	return out
}

// String is the set's roles joined by commas, in AllRoles' order: the form
// the stores keep.
func (rs Roles) String() string {
	names := make([]string, 0, 4)
	for _, r := range rs.List() {
		names = append(names, string(r))
	}
	return strings.Join(names, ",")
}

// ParseRoles reads roles joined by commas (String's form; spaces around a
// name and empty names are ignored). A name that is no role fails on
// field, with the name as its value.
func ParseRoles(field, text string) (Roles, error) {
	var set Roles
	for name := range strings.SplitSeq(text, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		r, ok := ParseRole(name)
		if !ok {
			return 0, disburse.Invalid(field, name, rolesMessage)
		}
		set |= RolesOf(r)
	}
	return set, nil
}

// Forbidden is the answer to a credential whose roles do not permit what
// it asked for (docs/api.md section 3.1): 403 forbidden. The credential's
// own organisation is never in doubt here, so it reveals nothing.
func Forbidden(need Role, have Roles) *disburse.Error {
	held := have.String()
	if held == "" {
		held = "none"
	}
	if need == RoleViewer {
		return disburse.Errorf(disburse.CodeForbidden, "this needs a role of the organisation; the credential's roles: %s", held)
	}
	if need == RoleAdmin {
		return disburse.Errorf(disburse.CodeForbidden, "this needs the admin role; the credential's roles: %s", held)
	}
	return disburse.Errorf(disburse.CodeForbidden, "this needs the %s or admin role; the credential's roles: %s", need, held)
}

// Permit is nil when rs permits need, else Forbidden.
func (rs Roles) Permit(need Role) error {
	if rs.Permits(need) {
		return nil
	}
	return Forbidden(need, rs)
}
