package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/webhooks"
)

// fuzzRoutes is every route of the route table (server.go), with who may
// call it: "org" (an access token), "admin" (the operator token) or "".
var fuzzRoutes = []struct{ method, path, auth string }{
	{"GET", "/healthz", ""},
	{"GET", "/openapi.yaml", ""},
	{"POST", "/authentication/getToken", ""},
	{"POST", "/batches", "org"},
	{"GET", "/batches", "org"},
	{"GET", "/batches/statusCodes", "org"},
	{"GET", "/batches/{batch}", "org"},
	{"PUT", "/batches/{batch}", "org"},
	{"GET", "/batches/{batch}/payments", "org"},
	{"POST", "/batches/{batch}/payments", "org"},
	{"POST", "/batches/{batch}/submit", "org"},
	{"POST", "/batches/{batch}/cancel", "org"},
	{"GET", "/payments/statusCodes", "org"},
	{"GET", "/payments/{payment}", "org"},
	{"DELETE", "/payments/{payment}", "org"},
	{"GET", "/members/{msisdn}/exists", "org"},
	{"GET", "/accounts", "org"},
	{"POST", "/admin/organisations", "admin"},
	{"GET", "/admin/organisations/{org}", "admin"},
	{"PUT", "/admin/organisations/{org}/settings", "admin"},
	{"POST", "/admin/organisations/{org}/accounts", "admin"},
	{"POST", "/admin/organisations/{org}/apiKeys", "admin"},
	{"DELETE", "/admin/apiKeys/{key}", "admin"},
	{"POST", "/admin/accounts/{account}/deposits", "admin"},
	{"POST", "/admin/members", "admin"},
	{"GET", "/admin/members/{msisdn}/statement", "admin"},
	{"GET", "/admin/notifications", "admin"},
	{"GET", "/admin/ledger/check", "admin"},
	{"POST", "/webhooks", "org"},
	{"GET", "/webhooks", "org"},
	{"GET", "/webhooks/{webhook}", "org"},
	{"PUT", "/webhooks/{webhook}", "org"},
	{"DELETE", "/webhooks/{webhook}", "org"},
	{"POST", "/webhooks/{webhook}/rotateSecret", "org"},
	{"GET", "/webhooks/{webhook}/deliveries", "org"},
	{"POST", "/webhooks/{webhook}/deliveries/{delivery}/retry", "org"},
	{"GET", "/admin/webhooks", "admin"},
	{"POST", "/admin/webhooks/{webhook}/disable", "admin"},
}

// fuzzTarget is a handler on a store with one of everything to aim at.
type fuzzTarget struct {
	name  string
	h     http.Handler
	token string
	ids   map[string]string // {batch}, {payment}, ... → a real id
}

// FuzzRequest sends any method-and-route, path parameter, query and body
// to every route of the API, on SQLite and, when it is configured, on
// PostgreSQL, and asserts that nothing answers 5xx and every error has the
// shape of docs/api.md section 2: a 400 is a non-empty array of failures, any other
// error a problem.
func FuzzRequest(f *testing.F) {
	for i := range fuzzRoutes {
		f.Add(uint8(i), "", "", []byte(`{}`))
	}
	nul := "a\x00b"
	for i, r := range fuzzRoutes {
		f.Add(uint8(i), nul, "externalId="+url.QueryEscape(nul)+"&recipient=%00&statusCode=%ff&skip=-1&take=x", []byte(`{"name":"a\u0000","externalId":"\u0000","msisdn":"27821234567\u0000","firstname":"\u0000","reference":"\u0000","amount":1,"apiKey":"\u0000"}`))
		if strings.Contains(r.path, "{") {
			f.Add(uint8(i), "not-an-id", "", []byte(`null`))
		}
	}
	f.Add(uint8(9), "", "", []byte(`{"clearExisting":false,"payments":[{"msisdn":"27821234567\u0000","amount":1,"externalId":"\u0000"}]}`))
	f.Add(uint8(7), "", "", []byte(`{"name":"`+strings.Repeat("é", 300)+`"}`))
	f.Add(uint8(7), "", "", []byte("{\"name\":\"\xff\xfe\",\"externalId\":\"\\ud800\"}"))

	targets := []fuzzTarget{newFuzzTarget(f, "sqlite", func(tb testing.TB) *sqlstore.Store {
		s, err := sqlite.Open(tb.Context(), filepath.Join(f.TempDir(), "fuzz.db"))
		if err != nil {
			tb.Fatal(err)
		}
		return s
	})}
	if os.Getenv(pgtest.EnvURL) != "" {
		targets = append(targets, newFuzzTarget(f, "postgres", func(tb testing.TB) *sqlstore.Store {
			s, err := postgres.Open(tb.Context(), pgtest.URL(tb))
			if err != nil {
				tb.Fatal(err)
			}
			return s
		}))
	}

	f.Fuzz(func(t *testing.T, route uint8, param, query string, body []byte) {
		r := fuzzRoutes[int(route)%len(fuzzRoutes)]
		for _, target := range targets {
			path := r.path
			for name, id := range target.ids {
				value := id
				if param != "" {
					value = url.PathEscape(param)
				}
				path = strings.ReplaceAll(path, "{"+name+"}", value)
			}
			if query != "" {
				path += "?" + query
			}
			req, err := http.NewRequest(r.method, "http://disburse.test"+path, bytes.NewReader(body))
			if err != nil {
				return // not a request a client could send
			}
			switch r.auth {
			case "org":
				req.Header.Set("Authorization", "Bearer "+target.token)
			case "admin":
				req.Header.Set("Authorization", "Bearer "+adminToken)
			}
			w := httptest.NewRecorder()
			target.h.ServeHTTP(w, req)
			checkAnswerShape(t, target.name+" "+r.method+" "+path, w)
		}
	})
}

// checkAnswerShape fails on a 5xx, and on an error not in a shape of
// docs/api.md section 2.
func checkAnswerShape(t *testing.T, what string, w *httptest.ResponseRecorder) {
	t.Helper()
	switch {
	case w.Code >= 500:
		t.Fatalf("%s: %d %s", what, w.Code, w.Body)
	case w.Code == http.StatusBadRequest:
		var fs []map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &fs); err != nil || len(fs) == 0 {
			t.Fatalf("%s: 400 body %s: %v", what, w.Body, err)
		}
		for _, f := range fs {
			if name, _ := f["fieldName"].(string); name == "" {
				t.Fatalf("%s: failure without fieldName in %s", what, w.Body)
			}
			if v, ok := f["fieldValue"].(string); !ok || len([]rune(v)) > 257 {
				t.Fatalf("%s: failure without a short fieldValue in %s", what, w.Body)
			}
		}
	case w.Code >= 400:
		var p map[string]any
		if w.Header().Get("Content-Type") != "application/problem+json" || json.Unmarshal(w.Body.Bytes(), &p) != nil || p["code"] == "" {
			t.Fatalf("%s: %d not a problem: %s %s", what, w.Code, w.Header().Get("Content-Type"), w.Body)
		}
	}
}

// newFuzzTarget sets up, through the API, an organisation with float, a
// key, a token, a DRAFT batch with one payment, and a member.
func newFuzzTarget(f *testing.F, name string, open func(testing.TB) *sqlstore.Store) fuzzTarget {
	f.Helper()
	store := open(f)
	f.Cleanup(func() { store.Close() })
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	hooks := webhooks.New(store.Webhooks(), svc)
	// Webhook URLs' host names resolve to a public address without asking
	// the network: tests send nothing beyond 127.0.0.1.
	hooks.Config.LookupHost = func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.215.5")}, nil
	}
	h := httpapi.New(svc, httpapi.Config{AdminToken: adminToken, MaxBodyBytes: 8192, Log: slog.New(slog.DiscardHandler),
		Webhooks: hooks, IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()})
	call := func(method, path, token string, body string, into any) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code >= 300 {
			f.Fatalf("%s setup: %s %s: %d %s", name, method, path, w.Code, w.Body)
		}
		if into != nil {
			if err := json.Unmarshal(w.Body.Bytes(), into); err != nil {
				f.Fatal(err)
			}
		}
	}
	var org struct {
		ID       string `json:"id"`
		Accounts []struct {
			ID string `json:"id"`
		} `json:"accounts"`
	}
	call("POST", "/admin/organisations", adminToken, `{"name":"Fuzz","referralsEnabled":true}`, &org)
	call("POST", "/admin/accounts/"+org.Accounts[0].ID+"/deposits", adminToken, `{"amount":100000}`, nil)
	var key struct{ ID, APIKey string }
	call("POST", "/admin/organisations/"+org.ID+"/apiKeys", adminToken, "", &key)
	var tok struct{ AccessToken string }
	call("POST", "/authentication/getToken", "", `{"apiKey":"`+key.APIKey+`"}`, &tok)
	var batch struct{ ID string }
	call("POST", "/batches", tok.AccessToken, `{"name":"fuzz"}`, &batch)
	var added struct {
		Payments []struct{ ID string } `json:"payments"`
	}
	call("POST", "/batches/"+batch.ID+"/payments", tok.AccessToken, `{"clearExisting":false,"payments":[{"msisdn":"254712345678","amount":10}]}`, &added)
	call("POST", "/admin/members", adminToken, `{"msisdn":"447911123456"}`, nil)
	// An endpoint, and a delivery of it: a second batch's submit.
	var hook struct{ ID string }
	call("POST", "/webhooks", tok.AccessToken, `{"url":"https://hooks.example.com/fuzz"}`, &hook)
	var submitted struct{ ID string }
	call("POST", "/batches", tok.AccessToken, `{"name":"fuzz submitted"}`, &submitted)
	call("POST", "/batches/"+submitted.ID+"/payments", tok.AccessToken, `{"clearExisting":false,"payments":[{"msisdn":"447911123456","amount":1}]}`, nil)
	call("POST", "/batches/"+submitted.ID+"/submit", tok.AccessToken, "", nil)
	var deliveries []struct{ ID string }
	call("GET", "/webhooks/"+hook.ID+"/deliveries", tok.AccessToken, "", &deliveries)
	if len(deliveries) == 0 {
		f.Fatalf("%s setup: the submit wrote no webhook delivery", name)
	}
	return fuzzTarget{name: name, h: h, token: tok.AccessToken, ids: map[string]string{
		"batch": batch.ID, "payment": added.Payments[0].ID, "org": org.ID, "key": key.ID,
		"account": org.Accounts[0].ID, "msisdn": "447911123456", "webhook": hook.ID, "delivery": deliveries[0].ID,
	}}
}
