package disburse

import (
	"errors"
	"fmt"

	"github.com/disburse/disburse/internal/text"
)

// Code names a kind of failure a client can act on. The HTTP adapter maps each
// code to one status (docs/api.md section 2); anything without a code is internal.
type Code string

// The error codes of docs/api.md section 2.
const (
	CodeInvalid           Code = "invalid"            // 400, with field failures
	CodeUnauthorized      Code = "unauthorized"       // 401
	CodeForbidden         Code = "forbidden"          // 403: the credential's role does not permit it, or an approval's requester decides it
	CodeNotFound          Code = "not_found"          // 404
	CodeInvalidState      Code = "invalid_state"      // 409
	CodeBatchEmpty        Code = "batch_empty"        // 422
	CodeInsufficientFloat Code = "insufficient_float" // 422
	CodePayloadTooLarge   Code = "payload_too_large"  // 413
	CodeUnavailable       Code = "unavailable"        // 503: the database cannot be reached, or is too busy
	CodeInternal          Code = "internal"           // 500
)

// FieldError is one validation failure, in the shape of docs/api.md section S7.1.
// Index is the payment's position in the request, or nil for request-level failures.
type FieldError struct {
	ErrorMessage string `json:"errorMessage"`
	FieldName    string `json:"fieldName"`
	FieldValue   string `json:"fieldValue"`
	Index        *int   `json:"index,omitempty"`
}

// Error is an application error: a code, a message safe to show a client, and
// for CodeInvalid the field failures.
type Error struct {
	Code    Code
	Message string
	Fields  []FieldError
	// Required and Available are set for CodeInsufficientFloat.
	Required, Available Money
}

func (e *Error) Error() string {
	if len(e.Fields) > 0 {
		return fmt.Sprintf("%s: %s (%d field failures)", e.Code, e.Message, len(e.Fields))
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Errorf returns an *Error with code and a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// ErrNotFound is what a store returns for a row that does not exist. The use
// cases turn it into a not_found *Error naming the resource.
var ErrNotFound = errors.New("not found")

// ErrDuplicate is what a store returns for a row whose unique key another
// row holds: for payments, an external id (Tx.InsertPayments).
var ErrDuplicate = errors.New("duplicate key")

// ErrUnavailable is what a store returns, wrapped around the cause, when
// its database cannot be reached (refused, timed out, connection lost)
// and nothing was committed: the client may simply try again.
var ErrUnavailable = &Error{Code: CodeUnavailable, Message: "the database cannot be reached; try again shortly"}

// ErrBusy is what a store returns, wrapped around the cause, when its
// database gave up waiting (a lock held too long, a statement past its
// time limit) or a conflict outlasted its retries, and nothing was
// committed: the client may simply try again, a little later.
var ErrBusy = &Error{Code: CodeUnavailable, Message: "the database is busy; try again shortly"}

// ErrorCode returns the code of err, or CodeInternal when err carries none.
func ErrorCode(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}

// Invalid returns a CodeInvalid error with a single request-level failure.
func Invalid(field, value, message string) *Error {
	return &Error{Code: CodeInvalid, Message: message, Fields: []FieldError{{ErrorMessage: message, FieldName: field, FieldValue: text.Short(value)}}}
}

// Validation collects field failures; Err returns nil when there are none.
type Validation struct {
	fields []FieldError
}

// Add records a failure; index < 0 means not tied to one payment.
func (v *Validation) Add(index int, field, value, message string) {
	f := FieldError{ErrorMessage: message, FieldName: field, FieldValue: text.Short(value)}
	if index >= 0 {
		i := index
		f.Index = &i
	}
	v.fields = append(v.fields, f)
}

// Err returns the collected failures as one CodeInvalid error, or nil.
func (v *Validation) Err() error {
	if len(v.fields) == 0 {
		return nil
	}
	return &Error{Code: CodeInvalid, Message: "validation failed", Fields: v.fields}
}

// NotFound is the not_found error of a missing what, as every use case
// says it, the features beside the domain included.
func NotFound(what string) *Error { return Errorf(CodeNotFound, "%s not found", what) }

// OrNotFound turns a store's ErrNotFound into a not_found error for what.
func OrNotFound(err error, what string) error {
	if errors.Is(err, ErrNotFound) {
		return NotFound(what)
	}
	return err
}
