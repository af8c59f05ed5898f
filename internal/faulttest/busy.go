package faulttest

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/sqlstore"
)

// Busy is what CheckBusy needs of an engine: a way to hold the database's
// locks from another connection, past the store's own time limit.
type Busy struct {
	// Hold takes the locks and returns what gives them back.
	Hold func(t *testing.T) (release func())
	// Reads says whether the held locks stop reads too (PostgreSQL's
	// LOCK TABLE does; SQLite's readers never wait for a writer).
	Reads bool
}

// CheckBusy serves store and, while b holds the database's locks, adds
// payments, submits, creates a batch and registers a member (and lists
// payments when b.Reads): each answers 503 unavailable, a problem with
// Retry-After (docs/api.md section 2), never 500. Once the locks are
// given back, nothing of them was kept.
func CheckBusy(t *testing.T, store *sqlstore.Store, b Busy) {
	t.Helper()
	ctx := t.Context()
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	o := NewOrg(t, svc, store.Auth())
	org, token, full := o.Org, o.Token, o.Batch
	empty, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "to add to"})
	if err != nil {
		t.Fatal(err)
	}
	const admin = "busy-test-admin-token"
	srv := httptest.NewServer(httpapi.New(svc, httpapi.Config{AdminToken: admin, Log: slog.New(slog.DiscardHandler), IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()}))
	defer srv.Close()

	calls := []struct{ method, path, auth, body string }{
		{"POST", "/batches/" + empty.ID + "/payments", token, `{"clearExisting":false,"payments":[{"msisdn":"254712345679","amount":5}]}`},
		{"POST", "/batches/" + full.ID + "/submit", token, ``},
		{"POST", "/batches", token, `{"name":"new"}`},
		{"POST", "/admin/members", admin, `{"msisdn":"254712345670"}`},
	}
	if b.Reads {
		calls = append(calls, struct{ method, path, auth, body string }{"GET", "/batches/" + full.ID + "/payments", token, ``})
	}
	release := b.Hold(t)
	for _, c := range calls {
		req, err := http.NewRequestWithContext(ctx, c.method, srv.URL+c.path, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+c.auth)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var got struct{ Code string }
		_ = json.Unmarshal(data, &got)
		if resp.StatusCode != http.StatusServiceUnavailable || got.Code != "unavailable" || resp.Header.Get("Retry-After") == "" ||
			resp.Header.Get("Content-Type") != "application/problem+json" {
			t.Errorf("%s %s with the database locked: %d %v %s, want 503 unavailable with Retry-After", c.method, c.path, resp.StatusCode, resp.Header, data)
		}
	}
	release()

	// Nothing was kept: the batches are as they were, no member was made.
	if got, err := svc.Batch(ctx, org.ID, full.ID); err != nil || got.Status != disburse.BatchDraft {
		t.Errorf("the submitted batch: %+v, %v; want it DRAFT still", got, err)
	}
	if got, err := svc.Batch(ctx, org.ID, empty.ID); err != nil || got.Summary.PaymentsCount != 0 {
		t.Errorf("the batch added to: %+v, %v; want no payments", got, err)
	}
	if bs, err := lists.Batches(ctx, svc, org.ID, disburse.ListQuery{}); err != nil || len(bs) != 2 {
		t.Errorf("batches: %d, %v; want the 2 made before", len(bs), err)
	}
	if ok, err := svc.MemberExists(ctx, org.ID, "254712345670"); err != nil || ok {
		t.Errorf("the member registered while locked exists: %v, %v", ok, err)
	}
}
