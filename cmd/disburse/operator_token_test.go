package main

import (
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/operators"
)

// TestOperatorToken: create prints the token once and only its hash is
// stored; list shows names, creation and last use; revoke ends it; the
// audit log names the command line (docs/operations.md "Operator tokens").
func TestOperatorToken(t *testing.T) {
	ctx := t.Context()
	db := "sqlite:" + filepath.Join(t.TempDir(), "o.db")
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := runOperatorToken(ctx, append(args[:1:1], append([]string{"--database-url", db}, args[1:]...)...), &out)
		return out.String(), err
	}
	out, err := run("create", "--name", "alice")
	if err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`dop_\S+`).FindString(out)
	if token == "" || !strings.Contains(out, "shown this once") {
		t.Fatalf("create printed %q", out)
	}
	if _, err := run("create", "--name", "alice"); err == nil {
		t.Error("a second live token named alice was made")
	}
	if _, err := run("create"); err == nil {
		t.Error("a token without a name was made")
	}
	if _, err := run("create", "--name", "bob"); err != nil {
		t.Fatal(err)
	}
	out, err = run("list")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^alice\s+\d{4}-\d\d-\d\dT\S+\s+never$`).MatchString(out) || !strings.Contains(out, "bob") || strings.Contains(out, token) {
		t.Errorf("list printed:\n%s", out)
	}

	store, err := openStore(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ops := operators.New(store, "")
	if a, err := ops.Authenticate(ctx, token); err != nil || a.Name != "alice" {
		t.Errorf("the printed token signs in as %+v, %v; want alice", a, err)
	}
	tokens, err := ops.Tokens(ctx)
	if err != nil || len(tokens) != 2 || tokens[0].Hash != secrets.Hash(token) {
		t.Errorf("stored %+v (%v), want alice's hash of the printed token", tokens, err)
	}
	if _, err := run("revoke", "--name", "alice"); err != nil {
		t.Fatal(err)
	}
	if _, err := ops.Authenticate(ctx, token); err != auth.ErrUnauthorized {
		t.Errorf("a revoked token: %v, want unauthorized", err)
	}
	if _, err := run("revoke", "--name", "alice"); err == nil {
		t.Error("revoking alice twice: no error")
	}
	if out, _ := run("list"); strings.Contains(out, "alice") || !strings.Contains(out, "bob") {
		t.Errorf("list after the revoke:\n%s", out)
	}
	page, err := ops.Audit(ctx, "", "", operators.PageQuery{})
	if err != nil {
		t.Fatal(err)
	}
	var actions []string
	for _, e := range page.Items {
		if e.Actor != disburse.CommandLine {
			t.Errorf("entry %s by %+v, want the command line", e.Action, e.Actor)
		}
		actions = append(actions, e.Action)
	}
	if want := "operatorToken.revoked operatorToken.created operatorToken.created"; strings.Join(actions, " ") != want {
		t.Errorf("audit %v, want %s", actions, want)
	}
}
