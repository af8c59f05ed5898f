package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/postgres/pgtest"
)

// TestRenewSkipsLockedClaim: while the work's transaction holds a key's
// row (its mark done, not yet committed), the renewal of the process's
// claims does not wait for it: it renews the others and leaves that row
// as it is (docs/idempotency.md).
func TestRenewSkipsLockedClaim(t *testing.T) {
	ctx := t.Context()
	s := pgtest.OpenSQL(t)
	ks := s.Idempotency()
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	busy := idempotency.Key{Scope: "org-a", KeyHash: "busy", Fingerprint: "fp", Owner: "p/1", LeaseUntil: t0, CreatedAt: t0}
	idle := busy
	idle.KeyHash, idle.Owner = "idle", "p/2"
	if err := ks.Write(ctx, func(tx idempotency.Tx) error {
		if err := tx.InsertIdempotencyKey(ctx, busy); err != nil {
			return err
		}
		return tx.InsertIdempotencyKey(ctx, idle)
	}); err != nil {
		t.Fatal(err)
	}
	hold := func(k idempotency.Key) disburse.IdempotencyHold {
		return disburse.IdempotencyHold{Scope: k.Scope, KeyHash: k.KeyHash, Owner: k.Owner}
	}

	marked, release := make(chan struct{}), make(chan struct{})
	work := make(chan error, 1)
	go func() {
		work <- s.Write(context.Background(), func(tx disburse.Tx) error {
			if err := tx.MarkIdempotencyKeyDone(ctx, hold(busy), "submit", "b1"); err != nil {
				return err
			}
			close(marked)
			<-release
			return nil
		})
	}()
	<-marked
	renewCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	renewed := t0.Add(time.Hour)
	err := ks.Write(renewCtx, func(tx idempotency.Tx) error {
		return tx.RenewIdempotencyKeys(renewCtx, []disburse.IdempotencyHold{hold(busy), hold(idle)}, renewed)
	})
	close(release)
	if err != nil {
		t.Fatalf("renewal beside a locked claim: %v, want it done without waiting", err)
	}
	if err := <-work; err != nil {
		t.Fatal(err)
	}
	leases := map[string]time.Time{}
	if err := ks.Write(ctx, func(tx idempotency.Tx) error {
		for _, k := range []idempotency.Key{busy, idle} {
			got, err := tx.LockIdempotencyKey(ctx, k.Scope, k.KeyHash)
			if err != nil {
				return err
			}
			leases[k.KeyHash] = got.LeaseUntil
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if !leases["idle"].Equal(renewed) || !leases["busy"].Equal(t0) {
		t.Errorf("expiries after the renewal: %v; want idle's renewed to %v, busy's left at %v", leases, renewed, t0)
	}
}

// TestOutboxRenewalSkipsLockedRows: while a transaction holds an outbox
// row (the process's own write of its outcome, not yet committed), the
// heartbeat's renewal does not wait for it: it renews the others, returns
// their ids only, and cannot deadlock with the write, which locks its rows
// in another order.
func TestOutboxRenewalSkipsLockedRows(t *testing.T) {
	ctx := t.Context()
	s := pgtest.OpenSQL(t)
	t0 := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	busy := disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: "254712345678",
		Message: "You have been paid", Status: disburse.NotificationPending, NextAttemptAt: t0, CreatedAt: t0}
	idle := busy
	idle.ID = disburse.NewID()
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertNotifications(ctx, []disburse.Notification{busy, idle}) }); err != nil {
		t.Fatal(err)
	}
	ns := s.Notifications()
	var claimed []disburse.Notification
	if err := ns.Write(ctx, func(tx notifications.Tx) (err error) {
		claimed, err = tx.ClaimNotifications(ctx, "p/1", t0, t0.Add(time.Minute), 10)
		return err
	}); err != nil || len(claimed) != 2 {
		t.Fatalf("claim = %v, %v; want both", claimed, err)
	}

	locked, release := make(chan struct{}), make(chan struct{})
	write := make(chan error, 1)
	go func() {
		write <- ns.Write(context.Background(), func(tx notifications.Tx) error {
			out := busy
			out.LeaseOwner, out.Status, out.Attempts, out.SentAt = "p/1", disburse.NotificationSent, 1, t0
			if _, err := tx.UpdateNotifications(ctx, []disburse.Notification{out}); err != nil {
				return err
			}
			close(locked)
			<-release
			return nil
		})
	}()
	select {
	case <-locked:
	case err := <-write:
		t.Fatalf("the write that holds a row: %v", err)
	}
	renewCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var renewed []string
	err := ns.Write(renewCtx, func(tx notifications.Tx) (err error) {
		renewed, err = tx.ExtendNotificationLeases(renewCtx, "p/1", []string{busy.ID, idle.ID}, t0.Add(time.Second), t0.Add(2*time.Minute))
		return err
	})
	close(release)
	if err != nil {
		t.Fatalf("renewal beside a locked row: %v, want it done without waiting", err)
	}
	if err := <-write; err != nil {
		t.Fatal(err)
	}
	if len(renewed) != 1 || renewed[0] != idle.ID {
		t.Errorf("renewed %v, want only the row nobody else held, %s", renewed, idle.ID)
	}
}
