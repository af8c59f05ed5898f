package storetest

import (
	"testing"

	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/portal/backoffice"
)

// RolesBefore00020 writes, statement by statement, what a release before
// migration 00020 wrote: an organisation with an API key, a user of it
// and an operator, none with a role.
var RolesBefore00020 = []string{
	`INSERT INTO organisations (id, name, currency, referrals_enabled, reversal_period_us, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000aa', 'Old Org', 'KES', FALSE, 1, 1)`,
	`INSERT INTO api_keys (id, organisation_id, hash, prefix, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000b1', '01a22000-0000-7000-8000-0000000000aa', 'hash-b1', 'dak_b1', 1)`,
	`INSERT INTO portal_users (id, email, password_hash, role, organisation_id, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000c1', 'pay@old.example', 'x', 'organisation', '01a22000-0000-7000-8000-0000000000aa', 1)`,
	`INSERT INTO portal_users (id, email, password_hash, role, organisation_id, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000c2', 'op@old.example', 'x', 'operator', NULL, 1)`,
}

// RolesFromThePreviousRelease writes a key and an organisation user as
// the previous release, still running beside the new one during a rolling
// upgrade, writes them after 00020: without the new columns.
var RolesFromThePreviousRelease = []string{
	`INSERT INTO api_keys (id, organisation_id, hash, prefix, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000b2', '01a22000-0000-7000-8000-0000000000aa', 'hash-b2', 'dak_b2', 2)`,
	`INSERT INTO portal_users (id, email, password_hash, role, organisation_id, created_at)
		VALUES ('01a22000-0000-7000-8000-0000000000c3', 'new@old.example', 'x', 'organisation', '01a22000-0000-7000-8000-0000000000aa', 2)`,
}

// RunRolesMigration checks migration 00020 on a database at 00019: exec
// runs a statement on it, open opens it as a store, which migrates it.
// RolesBefore00020 goes in first, then, once migrated,
// RolesFromThePreviousRelease; every key and organisation user must then
// be an admin, as they could do everything before, and the operator hold
// no organisation role.
func RunRolesMigration(t *testing.T, exec func(query string) error, open func() PortalStore) {
	t.Helper()
	for _, stmt := range RolesBefore00020 {
		if err := exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	s := open()
	for _, stmt := range RolesFromThePreviousRelease {
		if err := exec(stmt); err != nil {
			t.Fatalf("the previous release's insert after 00020: %v", err)
		}
	}
	checkRolesMigrated(t, s)
}

// checkRolesMigrated is RunRolesMigration's check.
func checkRolesMigrated(t *testing.T, s PortalStore) {
	t.Helper()
	ctx := t.Context()
	keys := getPortal(t, s, func(tx backoffice.Tx) ([]auth.APIKey, error) {
		return tx.APIKeys(ctx, "01a22000-0000-7000-8000-0000000000aa")
	})
	if len(keys) != 2 {
		t.Fatalf("keys after 00020: %+v", keys)
	}
	for _, k := range keys {
		if k.Role != auth.RoleAdmin {
			t.Errorf("key %s after 00020: role %q, want admin", k.Prefix, k.Role)
		}
	}
	admin := auth.RolesOf(auth.RoleAdmin)
	for email, want := range map[string]auth.Roles{"pay@old.example": admin, "new@old.example": admin, "op@old.example": 0} {
		u := getPortal(t, s, func(tx backoffice.Tx) (backoffice.User, error) { return tx.PortalUserByEmail(ctx, email) })
		if u.Roles != want {
			t.Errorf("%s after 00020: roles %q, want %q", email, u.Roles, want)
		}
	}
}
