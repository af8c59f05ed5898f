package postgres_test

import (
	"net/url"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/internal/faulttest"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestBusyIs503: while another session holds the tables locked past the
// store's statement_timeout (57014) or lock_timeout (55P03), set in the
// database URL, writes and reads answer 503 unavailable with Retry-After,
// and none of them is kept.
func TestBusyIs503(t *testing.T) {
	for _, setting := range []string{"statement_timeout", "lock_timeout"} {
		t.Run(setting, func(t *testing.T) {
			direct := pgtest.URL(t)
			u, err := url.Parse(direct)
			if err != nil {
				t.Fatal(err)
			}
			q := u.Query()
			q.Set(setting, "200")
			u.RawQuery = q.Encode()
			s, err := postgres.Open(t.Context(), u.String())
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			faulttest.CheckBusy(t, s, faulttest.Busy{Reads: true, Hold: func(t *testing.T) func() {
				conn, err := pgx.Connect(t.Context(), direct)
				if err != nil {
					t.Fatal(err)
				}
				tx, err := conn.Begin(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				if _, err := tx.Exec(t.Context(), `LOCK TABLE batches, payments, members IN ACCESS EXCLUSIVE MODE`); err != nil {
					t.Fatal(err)
				}
				return func() {
					if err := tx.Rollback(t.Context()); err != nil {
						t.Error(err)
					}
					conn.Close(t.Context())
				}
			}})
		})
	}
}
