package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

// TestE2EBatchReadAuthentication: GET /batches/{id} checks its credentials
// in the same statement as it reads (batch_read.go), so it is held to every
// rule s.org enforces: a bad, expired or revoked token is 401 whatever the
// id, and another organisation's or a missing batch is 404.
func TestE2EBatchReadAuthentication(t *testing.T) { eachStore(t, testE2EBatchReadAuthentication) }

func testE2EBatchReadAuthentication(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	a := h.createOrg("A", false, "")
	b := h.createOrg("B", false, "")
	batch := h.createBatch(a, "A's")
	path := "/batches/" + batch.ID

	if got := ok[Batch](t, h.do("GET", path, a.token, nil), 200); !cmp.Equal(batch, got) {
		t.Errorf("GET %s (-created +read):\n%s", path, cmp.Diff(batch, got))
	}
	ok[Batch](t, h.send("GET", path, "bearer "+a.token, nil), 200)

	for _, auth := range []string{"", "Bearer", "Bearer ", "Basic " + a.token, a.token, "Bearer " + a.token + "x", "Bearer " + adminToken, "Bearer " + a.key} {
		for _, p := range []string{path, "/batches/" + disburse.NewID(), "/batches/not-a-uuid"} {
			problem(t, h.send("GET", p, auth, nil), 401, "unauthorized")
		}
	}
	problem(t, h.do("GET", path, b.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/"+disburse.NewID(), a.token, nil), 404, "not_found")
	problem(t, h.do("GET", "/batches/not-a-uuid", a.token, nil), 404, "not_found")

	// Revoking the key stops its token at once, on this route too.
	key := ok[apiKeyBody](t, h.do("POST", "/admin/organisations/"+a.ID+"/apiKeys", adminToken, nil), 201)
	live := h.token(key.APIKey)
	ok[Batch](t, h.do("GET", path, live, nil), 200)
	if r := h.do("DELETE", "/admin/apiKeys/"+key.ID, adminToken, nil); r.status != http.StatusNoContent {
		t.Fatalf("revoke: %d %q", r.status, r.body)
	}
	problem(t, h.do("GET", path, live, nil), 401, "unauthorized")
	ok[Batch](t, h.do("GET", path, a.token, nil), 200)

	// And a token expires after TokenTTL.
	h.clock.Advance(time.Hour)
	problem(t, h.do("GET", path, a.token, nil), 401, "unauthorized")
}
