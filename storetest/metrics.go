package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// testOperatorGauges: counts by status with the oldest pending, live
// tokens only, unrevoked keys only, and zeros on an empty store.
func testOperatorGauges(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	gauges := func(now time.Time) disburse.OperatorGauges {
		return get(t, s, func(tx disburse.Tx) (disburse.OperatorGauges, error) { return tx.OperatorGauges(ctx, now) })
	}
	empty := disburse.OperatorGauges{Notifications: disburse.Outbox{ByStatus: map[string]int64{}},
		WebhookDeliveries: disburse.Outbox{ByStatus: map[string]int64{}}}
	same(t, "OperatorGauges of an empty store", empty, gauges(t0))

	w := newWorld(t, s)
	insertNotifications(t, s, notification("+254700000001", at(2*time.Minute)), notification("+254700000002", at(time.Minute)))
	live := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_live"), Prefix: "dak_li", CreatedAt: t0}
	revoked := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_gone"), Prefix: "dak_go", CreatedAt: t0}
	write(t, s, func(tx disburse.Tx) error {
		for _, k := range []disburse.APIKey{live, revoked} {
			if err := tx.InsertAPIKey(ctx, k); err != nil {
				return err
			}
		}
		for i, expires := range []time.Time{at(time.Hour), at(time.Minute)} {
			tok := disburse.Token{Hash: disburse.HashSecret("dat_" + string(rune('a'+i))), APIKeyID: live.ID,
				OrganisationID: w.org.ID, ExpiresAt: expires, CreatedAt: t0}
			if err := tx.InsertToken(ctx, tok); err != nil {
				return err
			}
		}
		return tx.RevokeAPIKey(ctx, revoked.ID, at(time.Minute))
	})
	want := disburse.OperatorGauges{
		Notifications:     disburse.Outbox{ByStatus: map[string]int64{"PENDING": 2}, OldestPending: at(time.Minute)},
		WebhookDeliveries: disburse.Outbox{ByStatus: map[string]int64{}},
		LiveTokens:        1, // the other expired at one minute
		ActiveAPIKeys:     1,
	}
	same(t, "OperatorGauges", want, gauges(at(30*time.Minute)))
}
