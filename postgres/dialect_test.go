package postgres_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/sqlstore"
)

// TestEngineErrors: errors are classified by SQLSTATE, however wrapped;
// these run without a server.
func TestEngineErrors(t *testing.T) {
	var e postgres.Engine
	for _, c := range []struct {
		code      string
		violation sqlstore.Violation
		retryable bool
	}{
		{"23505", sqlstore.UniqueViolation, false},
		{"23514", sqlstore.CheckViolation, false},
		{"23503", sqlstore.NoViolation, false}, // foreign key: a bug, not a case the store names
		{"40001", sqlstore.NoViolation, true},
		{"40P01", sqlstore.NoViolation, true},
	} {
		err := fmt.Errorf("lock account: %w", &pgconn.PgError{Code: c.code})
		if got := e.Violation(err); got != c.violation {
			t.Errorf("Violation(%s) = %v, want %v", c.code, got, c.violation)
		}
		if got := e.Retryable(err); got != c.retryable {
			t.Errorf("Retryable(%s) = %v, want %v", c.code, got, c.retryable)
		}
	}
	if e.Retryable(errors.New("40P01")) {
		t.Error("Retryable matched an error by its text")
	}
}
