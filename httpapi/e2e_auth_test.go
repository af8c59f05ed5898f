package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
)

type tokenBody struct {
	AccessToken string `json:"accessToken"`
	TokenType   string `json:"tokenType"`
	ExpiresIn   int    `json:"expiresIn"`
}

type apiKeyBody struct {
	ID     string `json:"id"`
	APIKey string `json:"apiKey"`
}

// TestE2EAuthentication covers docs/api.md section 3 and the operator/organisation split.
func TestE2EAuthentication(t *testing.T) { eachStore(t, testE2EAuthentication) }

func testE2EAuthentication(t *testing.T, store opener) {
	h := startDefaultOn(t, store)

	// The operator API wants the admin token and nothing else.
	problem(t, h.do("POST", "/admin/organisations", "", `{"name":"Acme"}`), 401, "unauthorized")
	problem(t, h.do("POST", "/admin/organisations", "wrong", `{"name":"Acme"}`), 401, "unauthorized")

	r := h.do("POST", "/admin/organisations", adminToken, `{"name":"Acme"}`)
	o := ok[Organisation](t, r, 201)
	if got := r.header.Get("Location"); got != "/admin/organisations/"+o.ID {
		t.Errorf("Location = %q", got)
	}
	want := Organisation{
		ID: o.ID, Name: "Acme", Currency: "KES", ReversalPeriodSeconds: 60 * 24 * 60 * 60,
		Accounts: []Account{{ID: o.Accounts[0].ID, Name: "Default", Currency: "KES", Balance: "0.00", HeldBalance: "0.00", IsDefault: true}},
	}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("organisation (-want +got):\n%s", diff)
	}
	if got := ok[Organisation](t, h.do("GET", "/admin/organisations/"+o.ID, adminToken, nil), 200); !cmp.Equal(want, got) {
		t.Errorf("GET organisation: %s", cmp.Diff(want, got))
	}

	key := ok[apiKeyBody](t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	if !disburse.ValidID(key.ID) || len(key.APIKey) < 40 {
		t.Errorf("api key %+v", key)
	}
	other := ok[apiKeyBody](t, h.do("POST", "/admin/organisations/"+o.ID+"/apiKeys", adminToken, nil), 201)
	problem(t, h.do("POST", "/admin/organisations/"+disburse.NewID()+"/apiKeys", adminToken, nil), 404, "not_found")

	tok := ok[tokenBody](t, h.do("POST", "/authentication/getToken", "", map[string]string{"apiKey": key.APIKey}), 200)
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || len(tok.AccessToken) < 43 || tok.AccessToken == key.APIKey {
		t.Errorf("token %+v", tok)
	}

	// getToken failures: wrong key 401, missing key 400, bad bodies 400.
	problem(t, h.do("POST", "/authentication/getToken", "", `{"apiKey":"dak_wrong"}`), 401, "unauthorized")
	wantFailures(t, h.do("POST", "/authentication/getToken", "", `{}`), failure{"ApiKey", "", nil})
	wantFailures(t, h.do("POST", "/authentication/getToken", "", `{"apiKey":""}`), failure{"ApiKey", "", nil})
	wantFailures(t, h.do("POST", "/authentication/getToken", "", `{"apiKey":5}`), failure{"ApiKey", "5", nil})
	wantFailures(t, h.do("POST", "/authentication/getToken", "", `{"apiKey":`), failure{"Body", "", nil})
	wantFailures(t, h.do("POST", "/authentication/getToken", "", nil), failure{"Body", "", nil})

	// Organisation routes: a bearer access token, the scheme in any case.
	ok[[]Batch](t, h.do("GET", "/batches", tok.AccessToken, nil), 200)
	ok[[]Batch](t, h.send("GET", "/batches", "bearer "+tok.AccessToken, nil), 200)
	for _, auth := range []string{"", "Bearer", "Bearer ", "Basic " + tok.AccessToken, tok.AccessToken, "Bearer " + tok.AccessToken + "x"} {
		problem(t, h.send("GET", "/batches", auth, nil), 401, "unauthorized")
	}
	// Neither credential works on the other's routes; an API key is no token.
	problem(t, h.do("GET", "/batches", adminToken, nil), 401, "unauthorized")
	problem(t, h.do("GET", "/admin/ledger/check", tok.AccessToken, nil), 401, "unauthorized")
	problem(t, h.do("GET", "/batches", key.APIKey, nil), 401, "unauthorized")

	// Tokens expire after TokenTTL.
	h.clock.Advance(time.Hour - time.Microsecond)
	ok[[]Batch](t, h.do("GET", "/batches", tok.AccessToken, nil), 200)
	h.clock.Advance(time.Microsecond)
	problem(t, h.do("GET", "/batches", tok.AccessToken, nil), 401, "unauthorized")

	// Revoking a key stops its live tokens at once, and only its own.
	live := h.token(key.APIKey)
	otherLive := h.token(other.APIKey)
	r = h.do("DELETE", "/admin/apiKeys/"+key.ID, adminToken, nil)
	if r.status != http.StatusNoContent || len(r.body) != 0 {
		t.Errorf("revoke: %d %q", r.status, r.body)
	}
	problem(t, h.do("GET", "/batches", live, nil), 401, "unauthorized")
	problem(t, h.do("POST", "/authentication/getToken", "", map[string]string{"apiKey": key.APIKey}), 401, "unauthorized")
	ok[[]Batch](t, h.do("GET", "/batches", otherLive, nil), 200)
	if r := h.do("DELETE", "/admin/apiKeys/"+key.ID, adminToken, nil); r.status != http.StatusNoContent {
		t.Errorf("revoking twice: %d", r.status)
	}
	problem(t, h.do("DELETE", "/admin/apiKeys/"+disburse.NewID(), adminToken, nil), 404, "not_found")
	problem(t, h.do("DELETE", "/admin/apiKeys/not-a-uuid", adminToken, nil), 404, "not_found")
}

// TestE2ENoAdminToken: with no admin token configured the operator API is
// closed to everyone (docs/api.md section 9).
func TestE2ENoAdminToken(t *testing.T) { eachStore(t, testE2ENoAdminToken) }

func testE2ENoAdminToken(t *testing.T, store opener) {
	h := startOn(t, store, httpapi.Config{})
	for _, auth := range []string{"", "Bearer", "Bearer ", "Bearer " + adminToken, "Bearer null"} {
		problem(t, h.send("GET", "/admin/ledger/check", auth, nil), 401, "unauthorized")
		problem(t, h.send("POST", "/admin/organisations", auth, `{"name":"Acme"}`), 401, "unauthorized")
	}
}
