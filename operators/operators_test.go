package operators

import (
	"os"
	"strings"
	"testing"

	"github.com/disburse/disburse/auth"
)

// TestActionsDocumented: docs/api.md section 7 lists every action, as the
// portal's filter offers them.
func TestActionsDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/api.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range Actions {
		if !strings.Contains(string(doc), "`"+a+"`") {
			t.Errorf("docs/api.md does not list the action %s", a)
		}
	}
}

// TestBootstrapToken: the bootstrap token signs in as "bootstrap" without
// a store; anything else does not, and no token means none.
func TestBootstrapToken(t *testing.T) {
	s := New(nil, "adm_bootstrap-token-of-tests")
	if a, err := s.Authenticate(t.Context(), "adm_bootstrap-token-of-tests"); err != nil || a != Bootstrap {
		t.Errorf("the bootstrap token: %+v, %v", a, err)
	}
	for _, token := range []string{"", "adm_bootstrap-token-of-test", "dop_x"} {
		if _, err := s.Authenticate(t.Context(), token); err != auth.ErrUnauthorized {
			t.Errorf("%q: %v, want unauthorized", token, err)
		}
	}
	if _, err := New(nil, "").Authenticate(t.Context(), ""); err != auth.ErrUnauthorized {
		t.Errorf("no bootstrap token configured, an empty bearer: %v", err)
	}
}

func TestTokenNames(t *testing.T) {
	for name, valid := range map[string]bool{"alice": true, "ci deploy": true, "": false, " alice": false,
		"bootstrap": false, strings.Repeat("x", 101): false, "a\x00b": false} {
		if err := validName(name); (err == nil) != valid {
			t.Errorf("%q: %v, want valid %v", name, err, valid)
		}
	}
}
