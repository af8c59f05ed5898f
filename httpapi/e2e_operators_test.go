package httpapi_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/secrets"
)

type OrganisationSummary struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Currency              string `json:"currency"`
	ReferralsEnabled      bool   `json:"referralsEnabled"`
	ReversalPeriodSeconds int64  `json:"reversalPeriodSeconds"`
	CreatedAt             string `json:"createdAt"`
}

type OrganisationsPage struct {
	Organisations []OrganisationSummary `json:"organisations"`
	NextCursor    *string               `json:"nextCursor"`
}

type APIKeyInfo struct {
	ID        string `json:"id"`
	Prefix    string `json:"prefix"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
	RevokedAt string `json:"revokedAt"`
}

// TestE2EOperatorLists: the operator lists organisations newest first in
// pages, and an organisation's API keys without secrets (docs/api.md
// section 7).
func TestE2EOperatorLists(t *testing.T) { eachStore(t, testE2EOperatorLists) }

func testE2EOperatorLists(t *testing.T, store opener) {
	h := startAudit(t, store)
	var made []org
	for _, name := range []string{"One", "Two", "Three"} {
		made = append(made, h.createOrg(name, false, ""))
		h.clock.Advance(time.Second)
	}
	var names []string
	var cursor *string
	for range 5 {
		q := "?take=2"
		if cursor != nil {
			q += "&after=" + *cursor
		}
		p := ok[OrganisationsPage](t, h.do("GET", "/admin/organisations"+q, h.token, nil), 200)
		for _, o := range p.Organisations {
			names = append(names, o.Name)
		}
		if cursor = p.NextCursor; cursor == nil {
			break
		}
	}
	if diff := cmp.Diff([]string{"Three", "Two", "One"}, names); diff != "" {
		t.Errorf("organisations by pages of 2 (-want +got):\n%s", diff)
	}
	p := ok[OrganisationsPage](t, h.do("GET", "/admin/organisations?take=1", h.token, nil), 200)
	want := OrganisationSummary{ID: made[2].ID, Name: "Three", Currency: "KES", ReversalPeriodSeconds: 60 * 24 * 3600, CreatedAt: p.Organisations[0].CreatedAt}
	if diff := cmp.Diff(want, p.Organisations[0]); diff != "" || p.NextCursor == nil {
		t.Errorf("the newest organisation (-want +got):\n%s; nextCursor %v", diff, p.NextCursor)
	}
	wantFailures(t, h.do("GET", "/admin/organisations?after=nope", h.token, nil), failure{FieldName: "After", FieldValue: "nope"})
	wantFailures(t, h.do("GET", "/admin/organisations?after="+made[0].Accounts[0].ID, h.token, nil), failure{FieldName: "After", FieldValue: made[0].Accounts[0].ID})
	wantFailures(t, h.do("GET", "/admin/organisations?take=0", h.token, nil), failure{FieldName: "Take", FieldValue: "0"})
	problem(t, h.do("GET", "/admin/organisations", made[0].token, nil), 401, "unauthorized")

	// API keys: the one createOrg issued, and a second one, revoked.
	second := ok[struct {
		ID     string `json:"id"`
		APIKey string `json:"apiKey"`
	}](t, h.do("POST", "/admin/organisations/"+made[0].ID+"/apiKeys", h.token, nil), 201)
	h.clock.Advance(time.Minute)
	if r := h.do("DELETE", "/admin/apiKeys/"+second.ID, h.token, nil); r.status != 204 {
		t.Fatalf("revoke: %d", r.status)
	}
	r := h.do("GET", "/admin/organisations/"+made[0].ID+"/apiKeys", h.token, nil)
	keys := ok[[]APIKeyInfo](t, r, 200)
	if len(keys) != 2 || keys[0].ID != second.ID || keys[0].Prefix != second.APIKey[:10] || keys[0].RevokedAt == "" || keys[1].RevokedAt != "" {
		t.Errorf("keys %+v", keys)
	}
	if strings.Contains(string(r.body), made[0].key) || strings.Contains(string(r.body), second.APIKey) ||
		strings.Contains(string(r.body), secrets.Hash(second.APIKey)) {
		t.Errorf("the list shows a secret or its hash: %s", r.body)
	}
	problem(t, h.do("GET", "/admin/organisations/"+disburse.NewID()+"/apiKeys", h.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/admin/organisations/nope/apiKeys", h.token, nil), 404, "not_found")
}

// TestE2EOperatorTokens: any live operator token signs in, a revoked one
// no longer does, and its last use is written at most once a minute
// (docs/operations.md "Operator tokens").
func TestE2EOperatorTokens(t *testing.T) { eachStore(t, testE2EOperatorTokens) }

func testE2EOperatorTokens(t *testing.T, store opener) {
	h := startAudit(t, store)
	ctx := t.Context()
	_, second, err := h.ops.CreateToken(ctx, disburse.CommandLine, "second")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.ops.CreateToken(ctx, disburse.CommandLine, "ops"); disburse.ErrorCode(err) != disburse.CodeInvalid {
		t.Errorf("a second live token named ops: %v", err)
	}
	lastUsed := func(name string) time.Time {
		tokens, err := h.ops.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, tk := range tokens {
			if tk.Name == name {
				return tk.LastUsedAt
			}
		}
		t.Fatalf("no live token %s", name)
		return time.Time{}
	}
	if !lastUsed("ops").IsZero() {
		t.Error("a token never used has a last use")
	}
	first := h.clock.Now()
	for _, token := range []string{h.token, second, adminToken} {
		ok[[]Notification](t, h.do("GET", "/admin/notifications", token, nil), 200)
	}
	h.clock.Advance(30 * time.Second)
	ok[[]Notification](t, h.do("GET", "/admin/notifications", h.token, nil), 200)
	if got := lastUsed("ops"); !got.Equal(first) {
		t.Errorf("last use %v after a second use within the minute, want the first's %v", got, first)
	}
	h.clock.Advance(30 * time.Second)
	ok[[]Notification](t, h.do("GET", "/admin/notifications", h.token, nil), 200)
	if got := lastUsed("ops"); !got.Equal(h.clock.Now()) {
		t.Errorf("last use %v a minute on, want %v", got, h.clock.Now())
	}

	if err := h.ops.RevokeToken(ctx, disburse.CommandLine, "second"); err != nil {
		t.Fatal(err)
	}
	problem(t, h.do("GET", "/admin/notifications", second, nil), 401, "unauthorized")
	ok[[]Notification](t, h.do("GET", "/admin/notifications", h.token, nil), 200)
	if err := h.ops.RevokeToken(ctx, disburse.CommandLine, "second"); disburse.ErrorCode(err) != disburse.CodeNotFound {
		t.Errorf("revoking a revoked token: %v, want not found", err)
	}
	for _, token := range []string{"dop_unknown", "nope", h.token + "x"} {
		problem(t, h.do("GET", "/admin/notifications", token, nil), 401, "unauthorized")
	}
}
