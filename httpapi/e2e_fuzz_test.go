package httpapi_test

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/webhooks"
)

// FuzzAddPayments sends any body to POST /batches/{id}/payments through the
// whole stack (decode, domain validation, store) and asserts that no input
// produces anything but 200, a well-formed 400 array, or a 413 problem.
func FuzzAddPayments(f *testing.F) {
	for _, seed := range []string{
		`{"clearExisting":true,"payments":[{"msisdn":"254712345678","amount":150.00}]}`,
		`{"clearExisting":true,"payments":[{"msisdn":"254712345678","amount":1,"referralAmount":1,"referralMsisdn":"447911123456","externalId":"e"}]}`,
		`{"clearExisting":false,"payments":[{"msisdn":"٢٥٤٧١٢٣٤٥٦٧٨","amount":1}]}`,
		`{"clearExisting":false,"payments":[{"msisdn":"254712345678\u0000","amount":1.0}]}`,
		`{"clearExisting":true,"payments":[{"msisdn":"254712345678","amount":1,"externalId":"\ud800"}]}`,
		"{\"clearExisting\":true,\"payments\":[{\"msisdn\":\"254712345678\",\"amount\":1,\"firstname\":\"\xff\xfe\"}]}",
		`{"clearExisting":false,"payments":[{"msisdn":"999999999999999","amount":999999999999999999.99}]}`,
		`{"clearExisting":false,"payments":[{},{},null,1,"x",[]]}`,
		`{"clearExisting":null,"payments":null}`, `{"payments":[{"amount":-0}]}`, `{"payments":[{"amount":0.00}]}`,
	} {
		f.Add([]byte(seed))
	}
	store, err := sqlite.Open(f.Context(), filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { store.Close() })
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	h := httpapi.New(svc, httpapi.Config{AdminToken: adminToken, MaxBodyBytes: 4096, Log: slog.New(slog.DiscardHandler),
		Webhooks: webhooks.New(store.Webhooks(), svc), IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()})
	call := func(method, path, token string, body []byte) *httptest.ResponseRecorder {
		r := httptest.NewRequest(method, path, bytes.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	var org struct {
		ID string `json:"id"`
	}
	var key struct {
		APIKey string `json:"apiKey"`
	}
	var tok struct {
		AccessToken string `json:"accessToken"`
	}
	var batch struct {
		ID string `json:"id"`
	}
	json.Unmarshal(call("POST", "/admin/organisations", adminToken, []byte(`{"name":"Fuzz","referralsEnabled":true}`)).Body.Bytes(), &org)
	json.Unmarshal(call("POST", "/admin/organisations/"+org.ID+"/apiKeys", adminToken, nil).Body.Bytes(), &key)
	json.Unmarshal(call("POST", "/authentication/getToken", "", []byte(`{"apiKey":"`+key.APIKey+`"}`)).Body.Bytes(), &tok)
	json.Unmarshal(call("POST", "/batches", tok.AccessToken, []byte(`{"name":"fuzz"}`)).Body.Bytes(), &batch)
	if batch.ID == "" {
		f.Fatal("setup failed")
	}

	f.Fuzz(func(t *testing.T, body []byte) {
		w := call("POST", "/batches/"+batch.ID+"/payments", tok.AccessToken, body)
		switch w.Code {
		case http.StatusOK:
		case http.StatusRequestEntityTooLarge:
			if w.Header().Get("Content-Type") != "application/problem+json" {
				t.Fatalf("413 as %s", w.Header().Get("Content-Type"))
			}
		case http.StatusBadRequest:
			var fs []map[string]any
			if err := json.Unmarshal(w.Body.Bytes(), &fs); err != nil || len(fs) == 0 {
				t.Fatalf("400 body %s: %v", w.Body, err)
			}
			for _, f := range fs {
				if name, _ := f["fieldName"].(string); name == "" {
					t.Fatalf("failure without fieldName in %s", w.Body)
				}
				if _, ok := f["fieldValue"].(string); !ok {
					t.Fatalf("failure without fieldValue in %s", w.Body)
				}
			}
		default:
			t.Fatalf("status %d for %q: %s", w.Code, body, w.Body)
		}
	})
}
