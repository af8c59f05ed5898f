package sqlstore_test

import (
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// TestOperatorGauges, on each engine: counts by status with the oldest
// pending, live tokens only, unrevoked keys only, and zeros on an empty
// store.
func TestOperatorGauges(t *testing.T) {
	open := map[string]func(t *testing.T) (*sqlstore.Store, error){
		"sqlite": func(t *testing.T) (*sqlstore.Store, error) {
			return sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "gauges.db"))
		},
		"postgres": func(t *testing.T) (*sqlstore.Store, error) {
			return postgres.Open(t.Context(), pgtest.URL(t))
		},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			s, err := open[engine](t)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { s.Close() })
			testOperatorGauges(t, s)
		})
	}
}

func testOperatorGauges(t *testing.T, s *sqlstore.Store) {
	ctx := t.Context()
	t0 := time.Date(2026, 11, 22, 10, 15, 30, 123456000, time.UTC)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	gauges := func(now time.Time) sqlstore.OperatorGauges {
		t.Helper()
		g, err := s.OperatorGauges(ctx, now)
		if err != nil {
			t.Fatalf("OperatorGauges: %v", err)
		}
		return g
	}
	empty := sqlstore.OperatorGauges{Notifications: sqlstore.Outbox{ByStatus: map[string]int64{}},
		WebhookDeliveries: sqlstore.Outbox{ByStatus: map[string]int64{}}}
	if diff := cmp.Diff(empty, gauges(t0)); diff != "" {
		t.Errorf("OperatorGauges of an empty store (-want +got):\n%s", diff)
	}

	org := disburse.Organisation{ID: disburse.NewID(), Name: "Acme", Currency: "KES",
		ReversalPeriod: 60 * 24 * time.Hour, HoldingAccountID: disburse.NewID(), CreatedAt: t0}
	holding := disburse.Account{ID: org.HoldingAccountID, OrganisationID: org.ID, Kind: disburse.AccountHolding,
		Name: "Holding", Currency: "KES", CreatedAt: t0}
	notification := func(recipient string, created time.Time) disburse.Notification {
		return disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: recipient,
			Message: "You have been paid", Status: disburse.NotificationPending, NextAttemptAt: created, CreatedAt: created}
	}
	live := auth.APIKey{ID: disburse.NewID(), OrganisationID: org.ID, Hash: secrets.Hash("dak_live"), Prefix: "dak_li", Role: auth.RoleAdmin, CreatedAt: t0}
	revoked := auth.APIKey{ID: disburse.NewID(), OrganisationID: org.ID, Hash: secrets.Hash("dak_gone"), Prefix: "dak_go", Role: auth.RoleAdmin, CreatedAt: t0}
	err := s.Write(ctx, func(tx disburse.Tx) error {
		return errors.Join(tx.InsertOrganisation(ctx, org), tx.InsertAccount(ctx, holding),
			tx.InsertNotifications(ctx, []disburse.Notification{
				notification("+254700000001", at(2*time.Minute)), notification("+254700000002", at(time.Minute))}))
	})
	if err != nil {
		t.Fatal(err)
	}
	err = s.Auth().Write(ctx, func(tx auth.Tx) error {
		for _, k := range []auth.APIKey{live, revoked} {
			if err := tx.InsertAPIKey(ctx, k); err != nil {
				return err
			}
		}
		for i, expires := range []time.Time{at(time.Hour), at(time.Minute)} {
			tok := auth.Token{Hash: secrets.Hash("dat_" + string(rune('a'+i))), APIKeyID: live.ID,
				OrganisationID: org.ID, ExpiresAt: expires, CreatedAt: t0}
			if err := tx.InsertToken(ctx, tok); err != nil {
				return err
			}
		}
		return tx.RevokeAPIKey(ctx, revoked.ID, at(time.Minute))
	})
	if err != nil {
		t.Fatal(err)
	}
	want := sqlstore.OperatorGauges{
		Notifications:     sqlstore.Outbox{ByStatus: map[string]int64{"PENDING": 2}, OldestPending: at(time.Minute)},
		WebhookDeliveries: sqlstore.Outbox{ByStatus: map[string]int64{}},
		LiveTokens:        1, // the other expired at one minute
		ActiveAPIKeys:     1,
	}
	if diff := cmp.Diff(want, gauges(at(30*time.Minute))); diff != "" {
		t.Errorf("OperatorGauges (-want +got):\n%s", diff)
	}
}
