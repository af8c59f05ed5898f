package httpapi

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
)

func intp(i int) *int { return &i }

// testServer is a server with no service, for what needs none; its log goes to logs.
func testServer(logs *bytes.Buffer) *server {
	return &server{maxBody: DefaultMaxBodyBytes, log: slog.New(slog.NewTextHandler(logs, nil))}
}

func TestWriteError(t *testing.T) {
	tests := []struct {
		name        string
		err         error
		status      int
		contentType string
		body        string
		header      http.Header // headers that must be present
	}{
		{
			name: "validation failures are a 400 array, index only per payment",
			err: &disburse.Error{Code: disburse.CodeInvalid, Message: "validation failed", Fields: []disburse.FieldError{
				{ErrorMessage: "bad msisdn", FieldName: "Msisdn", FieldValue: "0712345678", Index: intp(3)},
				{ErrorMessage: "required", FieldName: "ClearExisting"},
			}},
			status: 400, contentType: "application/json",
			body: `[{"errorMessage":"bad msisdn","fieldName":"Msisdn","fieldValue":"0712345678","index":3},` +
				`{"errorMessage":"required","fieldName":"ClearExisting","fieldValue":""}]`,
		},
		{
			name:   "an invalid error without fields is still an array",
			err:    disburse.Errorf(disburse.CodeInvalid, "no good"),
			status: 400, contentType: "application/json",
			body: `[{"errorMessage":"no good","fieldName":"Body","fieldValue":""}]`,
		},
		{
			name:   "unauthorized says how to authenticate",
			err:    disburse.Errorf(disburse.CodeUnauthorized, "who are you"),
			status: 401, contentType: "application/problem+json",
			body:   `{"type":"about:blank","title":"Unauthorized","status":401,"detail":"who are you","code":"unauthorized"}`,
			header: http.Header{"Www-Authenticate": {"Bearer"}},
		},
		{
			name:   "not found",
			err:    disburse.Errorf(disburse.CodeNotFound, "batch not found"),
			status: 404, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Not Found","status":404,"detail":"batch not found","code":"not_found"}`,
		},
		{
			name:   "a wrapped domain error keeps its code",
			err:    fmt.Errorf("submitting: %w", disburse.Errorf(disburse.CodeInvalidState, "cannot submit: batch is OPEN")),
			status: 409, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Conflict","status":409,"detail":"cannot submit: batch is OPEN","code":"invalid_state"}`,
		},
		{
			name:   "batch empty",
			err:    disburse.Errorf(disburse.CodeBatchEmpty, "no payments"),
			status: 422, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"no payments","code":"batch_empty"}`,
		},
		{
			name:   "insufficient float carries required and available as two-decimal numbers",
			err:    &disburse.Error{Code: disburse.CodeInsufficientFloat, Message: "short", Required: 15050, Available: 0},
			status: 422, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Unprocessable Entity","status":422,"detail":"short","code":"insufficient_float","required":150.50,"available":0.00}`,
		},
		{
			name:   "payload too large",
			err:    payloadTooLarge(10),
			status: 413, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Request Entity Too Large","status":413,"detail":"the request body is larger than 10 bytes","code":"payload_too_large"}`,
		},
		{
			name:   "method not allowed",
			err:    disburse.Errorf(codeMethodNotAllowed, "PATCH is not allowed on /batches"),
			status: 405, contentType: "application/problem+json",
			body: `{"type":"about:blank","title":"Method Not Allowed","status":405,"detail":"PATCH is not allowed on /batches","code":"method_not_allowed"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			testServer(new(bytes.Buffer)).writeError(w, httptest.NewRequest("GET", "/x", nil), tt.err)
			if w.Code != tt.status {
				t.Errorf("status = %d, want %d", w.Code, tt.status)
			}
			if got := w.Header().Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			if diff := cmp.Diff(tt.body, w.Body.String()); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			for k, v := range tt.header {
				if diff := cmp.Diff(v, w.Header().Values(k)); diff != "" {
					t.Errorf("header %s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

// TestWriteErrorInternal: an error without a known code is a 500 that shows
// nothing of the error, names the request id, and logs both.
func TestWriteErrorInternal(t *testing.T) {
	for _, err := range []error{
		errors.New("sql: database is locked at /var/lib/secret.db"),
		disburse.Errorf(disburse.CodeInternal, "sql: database is locked at /var/lib/secret.db"),
		disburse.Errorf("no_such_code", "sql: database is locked at /var/lib/secret.db"),
	} {
		var logs bytes.Buffer
		w := httptest.NewRecorder()
		r := httptest.NewRequest("GET", "/x", nil)
		r = r.WithContext(context.WithValue(r.Context(), requestIDKey{}, "req-42"))
		testServer(&logs).writeError(w, r, err)
		want := `{"type":"about:blank","title":"Internal Server Error","status":500,` +
			`"detail":"something went wrong on our side; quote the request id req-42 when reporting it","code":"internal","requestId":"req-42"}`
		if diff := cmp.Diff(want, w.Body.String()); diff != "" {
			t.Errorf("%v: body (-want +got):\n%s", err, diff)
		}
		if got := w.Header().Get("Content-Type"); got != "application/problem+json" {
			t.Errorf("Content-Type = %q", got)
		}
		if !strings.Contains(logs.String(), "req-42") || !strings.Contains(logs.String(), "secret.db") {
			t.Errorf("log lacks the request id or the error: %s", logs.String())
		}
	}
}

// TestStatusTable: every code the domain declares has a status.
func TestStatusTable(t *testing.T) {
	for _, c := range []disburse.Code{
		disburse.CodeInvalid, disburse.CodeUnauthorized, disburse.CodeNotFound, disburse.CodeInvalidState,
		disburse.CodeBatchEmpty, disburse.CodeInsufficientFloat, disburse.CodePayloadTooLarge, disburse.CodeInternal,
	} {
		if _, ok := statusOf[c]; !ok {
			t.Errorf("code %q has no status", c)
		}
	}
}
