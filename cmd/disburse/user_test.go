package main

import (
	"bytes"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

func TestUserCreate(t *testing.T) {
	ctx := t.Context()
	db := "sqlite:" + filepath.Join(t.TempDir(), "u.db")
	var out bytes.Buffer
	if err := userCreate(ctx, []string{"--database-url", db, "--email", "Op@Example.org", "--role", "operator"}, strings.NewReader(""), &out); err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`password\s+(\S+)`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("no password printed: %q", out.String())
	}
	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, office := disburse.NewService(store), backoffice.NewService(store)
	if _, _, err := office.SignIn(ctx, "op@example.org", m[1]); err != nil {
		t.Errorf("the printed password does not sign in: %v", err)
	}
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = userCreate(ctx, []string{"--database-url", db, "--email", "pay@acme.example", "--role", "organisation", "--organisation", org.ID, "--password-stdin"},
		strings.NewReader("correct horse battery staple\n"), &out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "password ") {
		t.Errorf("a password read from stdin was printed: %q", out.String())
	}
	// organisation, the value from before roles, makes an admin.
	if _, u, err := office.SignIn(ctx, "pay@acme.example", "correct horse battery staple"); err != nil || u.OrganisationID != org.ID ||
		u.Roles != auth.RolesOf(auth.RoleAdmin) {
		t.Errorf("the stdin password does not sign in as an admin: %v %+v", err, u)
	}
	if !strings.Contains(out.String(), "(organisation: admin)") {
		t.Errorf("user create --role organisation printed %q", out.String())
	}
	for email, roles := range map[string][]string{
		"two@acme.example":    {"--role", "maker", "--role", "approver"},
		"joined@acme.example": {"--role", "approver, maker"},
	} {
		out.Reset()
		args := append([]string{"--database-url", db, "--email", email, "--organisation", org.ID, "--password-stdin"}, roles...)
		if err := userCreate(ctx, args, strings.NewReader("correct horse battery staple\n"), &out); err != nil {
			t.Fatalf("user create %v: %v", roles, err)
		}
		_, u, err := office.SignIn(ctx, email, "correct horse battery staple")
		if err != nil || u.Roles != auth.RolesOf(auth.RoleMaker, auth.RoleApprover) || !strings.Contains(out.String(), "(organisation: maker,approver)") {
			t.Errorf("user create %v: %+v %v, printed %q", roles, u, err, out.String())
		}
	}
	for _, args := range [][]string{
		{"--email", "op@example.org", "--role", "operator"},                                  // taken
		{"--email", "x@example.org", "--role", "boss", "--organisation", org.ID},             // no such role
		{"--email", "x@example.org", "--role", "admin"},                                      // no organisation
		{"--email", "x@example.org", "--role", "organisation"},                               // no organisation
		{"--email", "x@example.org", "--organisation", org.ID},                               // no role
		{"--email", "x@example.org", "--role", "operator,maker"},                             // an operator holds no organisation role
		{"--email", "not-an-email", "--role", "operator"},                                    // not an email
		{"--email", "y@example.org", "--role", "operator", "--organisation", org.ID},         // an operator has none
		{"--email", "z@example.org", "--role", "viewer", "--organisation", disburse.NewID()}, // no such organisation
	} {
		if err := userCreate(ctx, append([]string{"--database-url", db}, args...), strings.NewReader(""), &out); err == nil {
			t.Errorf("user create %v: no error", args)
		}
	}
	if err := userCreate(ctx, []string{"--database-url", db, "--email", "z@example.org", "--role", "operator", "--password-stdin"}, strings.NewReader("short\n"), &out); err == nil {
		t.Error("a short password was accepted")
	}
}

// TestDemoPortalSignIn: serve --demo prints the portal address and two
// sign-ins that work, again with new passwords after a restart.
func TestDemoPortalSignIn(t *testing.T) {
	bin := buildBinary(t)
	db := "sqlite:" + filepath.Join(t.TempDir(), "d.db")
	for range 2 {
		s := startServe(t, bin, nil, "serve", "--demo", "--listen", "127.0.0.1:0", "--database-url", db)
		printed := s.printed(t)
		if !strings.Contains(printed, "portal "+s.base+"/portal/") {
			t.Errorf("the demo does not print the portal address %s/portal/:\n%s", s.base, printed)
		}
		signIns := regexp.MustCompile(`sign in as (\S+)\s+password (\S+)`).FindAllStringSubmatch(printed, -1)
		if len(signIns) != 2 {
			t.Fatalf("want two sign-ins printed:\n%s", printed)
		}
		for _, m := range signIns {
			c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			req, _ := http.NewRequest("POST", s.base+"/portal/signin", strings.NewReader(url.Values{"email": {m[1]}, "password": {m[2]}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			res, err := c.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Set-Cookie") == "" {
				t.Errorf("sign in as %s: %d", m[1], res.StatusCode)
			}
		}
		s.stop(t)
	}
}

// printed is what the process wrote to standard output so far.
func (s *serveProcess) printed(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(s.stdout)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
