package postgres_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/faulttest"
	"github.com/disburse/disburse/organisations"
)

// TestInDoubtKeySettlesAtOnce cuts the connection at the COMMIT of a
// request sent with an Idempotency-Key, and keeps the database out of
// reach while the request answers 500 and tries to release its key: the
// key stays as the cut left it. Once the database is back, the first
// retry settles it, with the default lease of ten minutes still running:
// a submit whose COMMIT reached the server is replayed; a create whose
// COMMIT never did runs anew, once. Retried on a second server, which
// cannot know the request is over, the create runs once the claim's
// expiry has passed unrenewed (that server's clock moved past it), still
// long before the lease ends.
func TestInDoubtKeySettlesAtOnce(t *testing.T) {
	ctx := t.Context()
	p, _, faulty, steady := openBehindProxy(t)
	check := disburse.NewService(steady)
	o := faulttest.NewOrg(t, check, steady.Auth())
	org, token, b := o.Org, o.Token, o.Batch

	srv := httptest.NewServer(httpapi.New(disburse.NewService(faulty),
		httpapi.Config{Log: slog.New(slog.DiscardHandler), IdempotencyStore: faulty.Idempotency(), AuthStore: faulty.Auth()}))
	defer srv.Close()
	var ahead atomic.Int64 // how far the second server's clock runs ahead
	second := disburse.NewService(steady)
	second.Clock = func() time.Time { return time.Now().Add(time.Duration(ahead.Load())) }
	srv2 := httptest.NewServer(httpapi.New(second,
		httpapi.Config{Log: slog.New(slog.DiscardHandler), IdempotencyStore: steady.Idempotency(), AuthStore: steady.Auth()}))
	defer srv2.Close()
	sendTo := func(srv *httptest.Server, path, key, body string) (int, http.Header, map[string]any) {
		t.Helper()
		req, _ := http.NewRequestWithContext(ctx, "POST", srv.URL+path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Idempotency-Key", key)
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var got map[string]any
		data, _ := io.ReadAll(resp.Body)
		_ = json.Unmarshal(data, &got)
		return resp.StatusCode, resp.Header, got
	}
	send := func(path, key, body string) (int, http.Header, map[string]any) {
		t.Helper()
		return sendTo(srv, path, key, body)
	}

	// The claim's COMMIT goes through; the submit's reaches the server,
	// and the connection is cut before its answer comes back.
	submit := "/batches/" + b.ID + "/submit"
	p.cutAtCommitAfter(commitCut{skip: 1, down: true})
	if status, _, got := send(submit, "submit-1", ""); status != 500 {
		t.Fatalf("submit cut at its COMMIT: %d %v, want 500", status, got)
	}
	p.up()
	status, header, got := send(submit, "submit-1", "")
	if status != 200 || header.Get("Idempotent-Replayed") != "true" || got["statusCode"] != "OPEN" {
		t.Errorf("retry of a submit that committed: %d %v %v, want its replay", status, header, got)
	}
	acc, err := organisations.Accounts(ctx, check, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	if acc[0].Balance != disburse.Money(990_00) {
		t.Errorf("float %v, want 990.00: the submit moved money once", acc[0].Balance)
	}

	// The create's COMMIT never reaches the server: nothing committed.
	p.cutAtCommitAfter(commitCut{skip: 1, drop: true, down: true})
	if status, _, got := send("/batches", "create-1", `{"name":"December"}`); status != 500 {
		t.Fatalf("create cut at its COMMIT: %d %v, want 500", status, got)
	}
	p.up()
	status, header, got = send("/batches", "create-1", `{"name":"December"}`)
	if status != 201 || header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry of a create that did not commit: %d %v %v, want it run anew", status, header, got)
	}
	id, _ := got["id"].(string)
	if _, err := check.Batch(ctx, org.ID, id); err != nil {
		t.Errorf("the batch the retry created: %v", err)
	}
	if status, header, _ := send("/batches", "create-1", `{"name":"December"}`); status != 201 || header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the create's next retry: %d %v, want its replay", status, header)
	}

	p.cutAtCommitAfter(commitCut{skip: 1, drop: true, down: true})
	if status, _, got := send("/batches", "create-2", `{"name":"January"}`); status != 500 {
		t.Fatalf("create cut at its COMMIT: %d %v, want 500", status, got)
	}
	p.up()
	if status, _, got := sendTo(srv2, "/batches", "create-2", `{"name":"January"}`); status != 409 {
		t.Errorf("retry on the second server within the claim's expiry: %d %v, want 409", status, got)
	}
	ahead.Store(int64(idempotency.ClaimExpiry + time.Second))
	status, header, got = sendTo(srv2, "/batches", "create-2", `{"name":"January"}`)
	if status != 201 || header.Get("Idempotent-Replayed") != "" {
		t.Errorf("retry on the second server after the claim's expiry: %d %v %v, want it run anew", status, header, got)
	}
	if status, header, _ := send("/batches", "create-2", `{"name":"January"}`); status != 201 || header.Get("Idempotent-Replayed") != "true" {
		t.Errorf("the create's next retry on the first server: %d %v, want its replay", status, header)
	}
}
