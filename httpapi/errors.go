package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// Codes of failures that belong to HTTP, not to the domain.
const (
	codeMethodNotAllowed disburse.Code = "method_not_allowed" // a known path, another method
	codeRateLimited      disburse.Code = "rate_limited"       // past a request budget (ratelimit.go)
)

// statusOf is the one table from error code to HTTP status (docs/api.md section 2).
// A code missing here is answered as internal.
var statusOf = map[disburse.Code]int{
	disburse.CodeInvalid:           http.StatusBadRequest,
	disburse.CodeUnauthorized:      http.StatusUnauthorized,
	disburse.CodeForbidden:         http.StatusForbidden,
	disburse.CodeNotFound:          http.StatusNotFound,
	codeMethodNotAllowed:           http.StatusMethodNotAllowed,
	disburse.CodeInvalidState:      http.StatusConflict,
	disburse.CodePayloadTooLarge:   http.StatusRequestEntityTooLarge,
	disburse.CodeBatchEmpty:        http.StatusUnprocessableEntity,
	disburse.CodeInsufficientFloat: http.StatusUnprocessableEntity,
	disburse.CodeInternal:          http.StatusInternalServerError,
	disburse.CodeUnavailable:       http.StatusServiceUnavailable,

	idempotency.CodeKeyReused:  http.StatusUnprocessableEntity,
	idempotency.CodeInProgress: http.StatusConflict,
	codeRateLimited:            http.StatusTooManyRequests,
}

// problem is an RFC 9457 problem details body. The type is about:blank, so
// the title is the status's phrase; code tells a client which failure it is.
type problem struct {
	Type   string        `json:"type"`
	Title  string        `json:"title"`
	Status int           `json:"status"`
	Detail string        `json:"detail"`
	Code   disburse.Code `json:"code"`
	// Required and Available are set for insufficient_float only.
	Required  *disburse.Money `json:"required,omitempty"`
	Available *disburse.Money `json:"available,omitempty"`
	// RequestID is set for internal errors, to quote to the operator.
	RequestID string `json:"requestId,omitempty"`
}

// StatusClientClosed is the status the request log and the metrics give a
// request whose client hung up before its answer (nginx's 499): not the
// service's failure, so apart from the 5xx an alert watches
// (docs/operations.md, "Logs").
const StatusClientClosed = 499

// writeError is the one place an error becomes a response. A domain error
// with a known code is shown as it is: its message is safe by design.
// Anything else is logged with the request id and answered as internal,
// with nothing of the error in the body. When the client has hung up (the
// request's context is cancelled, which net/http does only then), whatever
// failed is noted at INFO and the status is 499: no one reads the answer.
func (s *server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	if errors.Is(r.Context().Err(), context.Canceled) {
		s.log.InfoContext(r.Context(), "client closed the request", "request_id", requestIDFrom(r.Context()), "method", r.Method, "route", s.route(r), "err", err)
		w.WriteHeader(StatusClientClosed)
		return
	}
	var e *disburse.Error
	status, known := 0, false
	if errors.As(err, &e) {
		status, known = statusOf[e.Code]
	}
	if !known || e.Code == disburse.CodeInternal {
		id := requestIDFrom(r.Context())
		s.log.ErrorContext(r.Context(), "internal error", "request_id", id, "method", r.Method, "route", s.route(r), "err", err)
		writeProblem(w, problem{
			Status: http.StatusInternalServerError, Code: disburse.CodeInternal, RequestID: id,
			Detail: "something went wrong on our side; quote the request id " + id + " when reporting it",
		})
		return
	}
	if e.Code == disburse.CodeInvalid {
		_ = writeJSON(w, http.StatusBadRequest, fieldFailures(e)) // FieldErrors always marshal
		return
	}
	switch e.Code {
	case disburse.CodeUnauthorized:
		w.Header().Set("WWW-Authenticate", "Bearer")
	case disburse.CodeUnavailable:
		// Nothing was committed: the same request may simply be sent again.
		w.Header().Set("Retry-After", "1")
		s.log.WarnContext(r.Context(), "database unavailable", "request_id", requestIDFrom(r.Context()), "method", r.Method, "route", s.route(r), "err", err)
	}
	writeProblem(w, problemOf(e, status))
}

// problemOf is the problem of a domain error with a known code, answered
// with status.
func problemOf(e *disburse.Error, status int) problem {
	p := problem{Status: status, Code: e.Code, Detail: e.Message}
	if e.Code == disburse.CodeInsufficientFloat {
		p.Required, p.Available = &e.Required, &e.Available
	}
	return p
}

// fieldFailures is the 400 body: never empty, never null.
func fieldFailures(e *disburse.Error) []disburse.FieldError {
	if len(e.Fields) > 0 {
		return e.Fields
	}
	return []disburse.FieldError{{ErrorMessage: e.Message, FieldName: "Body"}}
}

// filled is p with its type and title: about:blank, and the status's phrase.
func (p problem) filled() problem {
	p.Type, p.Title = "about:blank", http.StatusText(p.Status)
	return p
}

func writeProblem(w http.ResponseWriter, p problem) {
	body, _ := json.Marshal(p.filled()) // a problem always marshals
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(p.Status)
	_, _ = w.Write(body)
}

// writeJSON writes v with status. It fails only when v does not marshal,
// before anything is written, so the caller's error becomes the response.
// A failed write means the client has gone: there is no one left to tell.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	body, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(body)
	return nil
}
