package main

import (
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/poll"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// TestPortalSharesTheBulkGate: the handler serve builds hands the API's
// bulk gate to the portal, so that a process has one gate for both
// (docs/operations.md, "Bulk work"): with the gate held, the portal's
// submit waits at it.
func TestPortalSharesTheBulkGate(t *testing.T) {
	ctx := t.Context()
	store, err := openStore(ctx, "sqlite:"+filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	svc, office := disburse.NewService(store), backoffice.NewService(store)
	office.PasswordCost = backoffice.PasswordCost{Time: 1, Memory: 8, Threads: 1}
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Acme"})
	if err != nil {
		t.Fatal(err)
	}
	_, password, err := office.CreateUser(ctx, backoffice.NewUser{Email: "pay@acme.example", Role: backoffice.RoleOrganisation, OrganisationID: org.ID})
	if err != nil {
		t.Fatal(err)
	}
	gate := bulkgate.New(1)
	c := &config{}
	srv := httptest.NewServer(c.handler(svc, office, httpapi.Config{IdempotencyStore: store.Idempotency(), AuthStore: store.Auth(),
		OperatorStore: store, BulkGate: gate}, nil))
	defer srv.Close()

	jar, _ := cookiejar.New(nil)
	client := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	post := func(path string, form url.Values) (int, error) {
		req, _ := http.NewRequest("POST", srv.URL+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		res, err := client.Do(req)
		if err != nil {
			return 0, err
		}
		res.Body.Close()
		return res.StatusCode, nil
	}
	if status, err := post("/portal/signin", url.Values{"email": {"pay@acme.example"}, "password": {password}}); status != http.StatusSeeOther {
		t.Fatalf("sign in: %d, %v", status, err)
	}

	release, err := gate.Acquire(ctx, "the test")
	if err != nil {
		t.Fatal(err)
	}
	answered := make(chan int, 1)
	go func() {
		status, _ := post("/portal/batches/"+disburse.NewID()+"/submit", nil)
		answered <- status
	}()
	poll.Until(t, func() bool { return gate.Waiting() == 1 }, "the portal's submit waiting at the API's gate")
	release()
	if status := <-answered; status != http.StatusNotFound {
		t.Errorf("the submit of no batch, once admitted: %d, want 404", status)
	}
}
