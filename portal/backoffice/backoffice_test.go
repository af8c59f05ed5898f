package backoffice_test

import (
	"strings"
	"testing"

	"github.com/disburse/disburse/portal/backoffice"
)

// The store-backed use cases run in portal/ (over HTTP) and the store's
// methods in storetest.RunPortal; these are the rules that need no store.

func TestPasswordHash(t *testing.T) {
	password := backoffice.NewPassword()
	if len(password) != 22 {
		t.Errorf("NewPassword: %q, want 22 characters", password)
	}
	hash := backoffice.HashPassword(password)
	// OWASP's recommended cost: m=19 MiB, t=2, p=1.
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") || strings.Contains(hash, password) {
		t.Errorf("HashPassword: %q", hash)
	}
	if !backoffice.CheckPassword(hash, password) {
		t.Error("the password does not match its own hash")
	}
	if backoffice.CheckPassword(hash, password+"x") {
		t.Error("a wrong password matches")
	}
	if backoffice.HashPassword(password) == hash {
		t.Error("two hashes of one password are equal: no salt")
	}
	for _, bad := range []string{"", "plain", "$argon2id$v=19$m=x$a$b", "$bcrypt$a$b$c$d"} {
		if backoffice.CheckPassword(bad, password) {
			t.Errorf("CheckPassword(%q) matched", bad)
		}
	}
}

func TestScope(t *testing.T) {
	op := backoffice.User{Role: backoffice.RoleOperator}
	member := backoffice.User{Role: backoffice.RoleOrganisation, OrganisationID: "org"}
	if op.Scope() != "" || member.Scope() != "org" {
		t.Errorf("scopes %q and %q, want every organisation and org", op.Scope(), member.Scope())
	}
}

func TestUploadPercent(t *testing.T) {
	for _, tc := range []struct {
		u    backoffice.Upload
		want int
	}{
		{backoffice.Upload{Phase: backoffice.UploadReceiving}, 0},
		{backoffice.Upload{Phase: backoffice.UploadChecking, Done: 1, Total: 4}, 25},
		{backoffice.Upload{Phase: backoffice.UploadAdding, Done: 9, Total: 4}, 100},
		{backoffice.Upload{Phase: backoffice.UploadDone}, 100},
	} {
		if got := tc.u.Percent(); got != tc.want {
			t.Errorf("%+v: %d%%, want %d%%", tc.u, got, tc.want)
		}
	}
}
