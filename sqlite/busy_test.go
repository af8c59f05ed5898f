package sqlite

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/disburse/disburse/internal/faulttest"
)

// TestBusyIs503: while another process holds the write lock past the
// busy timeout, every write answers 503 unavailable with Retry-After, and
// none of them is kept.
func TestBusyIs503(t *testing.T) {
	path := filepath.Join(t.TempDir(), "busy.db")
	s, err := open(t.Context(), path, Engine{busyTimeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	faulttest.CheckBusy(t, s, faulttest.Busy{Hold: func(t *testing.T) func() {
		// Another process's writer: a connection of its own, in a write
		// transaction, outside the store's pools.
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		conn, err := db.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.ExecContext(t.Context(), "BEGIN IMMEDIATE"); err != nil {
			t.Fatal(err)
		}
		return func() {
			if _, err := conn.ExecContext(context.Background(), "ROLLBACK"); err != nil {
				t.Error(err)
			}
			conn.Close()
			db.Close()
		}
	}})
}
