package storetest

import (
	"slices"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notifications"
)

// NotificationStore is a store that also hands over the notification
// delivery's port, as sqlstore.Store does: the suite writes the outbox
// through the one, as a money transaction does, and claims it through the
// other.
type NotificationStore interface {
	disburse.Store
	Notifications() notifications.Store
}

// RunNotifications runs the suite of notifications.Tx, each test in
// parallel on a store of its own. open returns a new, empty, migrated
// store and arranges its closing with t.Cleanup.
func RunNotifications(t *testing.T, open func(t *testing.T) NotificationStore) {
	tests := []struct {
		name string
		run  func(*testing.T, NotificationStore)
	}{
		{"ClaimNotifications", testClaimNotifications},
		{"ExtendNotificationLeases", testExtendNotificationLeases},
		{"UpdateNotifications", testUpdateNotifications},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// writeNotifications runs fn in a write transaction of the delivery's port.
func writeNotifications(t *testing.T, s NotificationStore, fn func(notifications.Tx) error) {
	t.Helper()
	writeIn(t, s.Notifications().Write, fn)
}

// notification returns a new PENDING notification, due at created.
func notification(recipient string, created time.Time) disburse.Notification {
	return disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: recipient,
		Message: "You have been paid", Status: disburse.NotificationPending, NextAttemptAt: created, CreatedAt: created}
}

func insertNotifications(t *testing.T, s disburse.Store, ns ...disburse.Notification) {
	t.Helper()
	write(t, s, func(tx disburse.Tx) error { return tx.InsertNotifications(t.Context(), ns) })
}

// claim runs ClaimNotifications in a transaction of its own.
func claim(t *testing.T, s NotificationStore, owner string, now time.Time, limit int) []disburse.Notification {
	t.Helper()
	var got []disburse.Notification
	writeNotifications(t, s, func(tx notifications.Tx) (err error) {
		got, err = tx.ClaimNotifications(t.Context(), owner, now, now.Add(time.Minute), limit)
		return err
	})
	return got
}

func testNotifications(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	a := notification(msisdnKE, at(time.Second))
	b := notification(msisdnUK, t0)
	b.Channel, b.Attempts, b.LastError = disburse.ChannelPush, 2, "gateway down"
	c := notification(msisdnKE, at(2*time.Second))
	c.Status, c.SentAt = disburse.NotificationSent, at(3*time.Second)
	insertNotifications(t, s, a, b, c)
	all := get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "Notifications (oldest first)", []disburse.Notification{b, a, c}, all)
	mine := get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, msisdnKE) })
	same(t, "Notifications of a recipient", []disburse.Notification{a, c}, mine)
}

func testClaimNotifications(t *testing.T, s NotificationStore) {
	early := notification(msisdnKE, t0)
	due := notification(msisdnKE, at(time.Second))
	future := notification(msisdnKE, at(time.Hour))
	sent := notification(msisdnKE, t0)
	sent.Status, sent.SentAt = disburse.NotificationSent, t0
	failed := notification(msisdnKE, t0)
	failed.Status = disburse.NotificationFailed
	insertNotifications(t, s, future, due, sent, early, failed)
	now := at(time.Minute)

	got := claim(t, s, "one", now, 1)
	early.LeaseOwner, early.LeaseUntil = "one", now.Add(time.Minute)
	same(t, "first claim (limit 1)", []disburse.Notification{early}, got)

	got = claim(t, s, "two", now, 10)
	due.LeaseOwner, due.LeaseUntil = "two", now.Add(time.Minute)
	same(t, "second claim skips the live lease", []disburse.Notification{due}, got)

	if got := claim(t, s, "three", now, 10); len(got) != 0 {
		t.Errorf("third claim = %v, want nothing", got)
	}

	// A lease that has run out is taken over.
	later := now.Add(2 * time.Minute)
	got = claim(t, s, "three", later, 1)
	early.LeaseOwner, early.LeaseUntil = "three", later.Add(time.Minute)
	same(t, "claim after the lease ran out", []disburse.Notification{early}, got)

	// Released leases are free at once. A release names rows and frees
	// only those the owner still holds: early, which three holds now and
	// which would be claimed first, stays leased.
	writeNotifications(t, s, func(tx notifications.Tx) error {
		return tx.ReleaseNotifications(t.Context(), "two", []string{due.ID, early.ID, future.ID})
	})
	got = claim(t, s, "four", now, 10)
	due.LeaseOwner, due.LeaseUntil = "four", now.Add(time.Minute)
	same(t, "claim after release", []disburse.Notification{due}, got)
}

func testUpdateNotifications(t *testing.T, s NotificationStore) {
	ctx := t.Context()
	n := notification(msisdnKE, t0)
	insertNotifications(t, s, n)
	claimed := claim(t, s, "worker", at(time.Minute), 10)
	if len(claimed) != 1 {
		t.Fatalf("claimed %d notifications, want 1", len(claimed))
	}
	retry := claimed[0]
	retry.Attempts, retry.LastError, retry.NextAttemptAt = 1, "timeout", at(time.Hour)
	updateNotifications(t, s, 1, retry)
	retry.LeaseOwner, retry.LeaseUntil = "", time.Time{}
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "after a failed attempt (lease cleared)", []disburse.Notification{retry}, got)

	if got := claim(t, s, "worker", at(time.Hour-time.Second), 10); len(got) != 0 {
		t.Errorf("claimed before its next attempt: %v", got)
	}
	sent := claim(t, s, "worker", at(time.Hour), 10)[0]
	sent.Status, sent.Attempts, sent.SentAt, sent.LastError = disburse.NotificationSent, 2, at(time.Hour), ""
	updateNotifications(t, s, 1, sent)
	sent.LeaseOwner, sent.LeaseUntil = "", time.Time{}
	got = get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "after delivery", []disburse.Notification{sent}, got)

	// Only rows still leased to the owner named in them are written: not
	// one that is missing, not one already done (its lease cleared).
	missing := notification(msisdnKE, t0)
	missing.LeaseOwner = "worker"
	again := sent
	again.LeaseOwner, again.Status, again.Attempts = "worker", disburse.NotificationFailed, 9
	updateNotifications(t, s, 0, missing, again)
	got = get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "after outcomes of no lease", []disburse.Notification{sent}, got)

	// Many at once: each row written under its own owner's lease.
	many := make([]disburse.Notification, 7)
	for i := range many {
		many[i] = notification(msisdnKE, t0.Add(time.Duration(i)*time.Second))
	}
	insertNotifications(t, s, many...)
	first, second := claim(t, s, "one", at(2*time.Hour), 4), claim(t, s, "two", at(2*time.Hour), 10)
	if len(first) != 4 || len(second) != 3 {
		t.Fatalf("claimed %d and %d, want 4 and 3", len(first), len(second))
	}
	outcomes := append(slices.Clone(first), second...)
	for i := range outcomes {
		outcomes[i].Status, outcomes[i].Attempts, outcomes[i].SentAt = disburse.NotificationSent, 1, at(2*time.Hour)
	}
	outcomes[5].LeaseOwner = "one" // not its lease
	updateNotifications(t, s, 6, outcomes...)
	got = get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, msisdnKE) })
	sentNow := 0
	for _, n := range got {
		if n.Status == disburse.NotificationSent && n.SentAt.Equal(at(2*time.Hour)) && n.LeaseOwner == "" {
			sentNow++
		}
	}
	if sentNow != 6 {
		t.Errorf("%d notifications written by the bulk update, want 6", sentNow)
	}
}

// updateNotifications runs UpdateNotifications in a transaction of its own and checks
// how many it wrote.
func updateNotifications(t *testing.T, s NotificationStore, want int, ns ...disburse.Notification) {
	t.Helper()
	var written int
	writeNotifications(t, s, func(tx notifications.Tx) error {
		var err error
		written, err = tx.UpdateNotifications(t.Context(), ns)
		return err
	})
	if written != want {
		t.Errorf("UpdateNotifications wrote %d, want %d", written, want)
	}
}

// testExtendNotificationLeases: a renewal moves the lease of the named rows
// the owner holds, in one call, and returns their ids; not another owner's
// (though the renewal began before the other's claim), not one whose lease
// has ended (another process may be taking it).
func testExtendNotificationLeases(t *testing.T, s NotificationStore) {
	ctx := t.Context()
	a, b, c := notification(msisdnKE, t0), notification(msisdnKE, at(time.Second)), notification(msisdnKE, at(2*time.Second))
	insertNotifications(t, s, a, b, c)
	now := at(time.Minute)
	claim(t, s, "one", now, 2) // a and b, until now+1m
	claim(t, s, "two", now, 1) // c
	extend := func(owner string, now, until time.Time, want []string, ids ...string) {
		t.Helper()
		var renewed []string
		writeNotifications(t, s, func(tx notifications.Tx) (err error) {
			renewed, err = tx.ExtendNotificationLeases(ctx, owner, ids, now, until)
			return err
		})
		slices.Sort(renewed)
		slices.Sort(want)
		if !slices.Equal(renewed, want) {
			t.Errorf("ExtendNotificationLeases(%s, %v) renewed %v, want %v", owner, ids, renewed, want)
		}
	}
	extend("one", now.Add(30*time.Second), now.Add(2*time.Minute), []string{a.ID, b.ID}, a.ID, b.ID, c.ID)
	a.LeaseOwner, a.LeaseUntil = "one", now.Add(2*time.Minute)
	b.LeaseOwner, b.LeaseUntil = "one", now.Add(2*time.Minute)
	c.LeaseOwner, c.LeaseUntil = "two", now.Add(time.Minute)
	got := get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "after one's renewal", []disburse.Notification{a, b, c}, got)

	if got := claim(t, s, "three", now.Add(90*time.Second), 10); len(got) != 1 || got[0].ID != c.ID {
		t.Errorf("claim after the renewed leases' first end = %v, want only c", got)
	}
	c.LeaseOwner, c.LeaseUntil = "three", now.Add(150*time.Second)
	// two's heartbeat began before its lease ended and reached the
	// database after three's claim: it renews nothing, and says so.
	extend("two", now.Add(50*time.Second), now.Add(110*time.Second), nil, c.ID)
	// one's leases ended at now+2m: a late renewal does not take them back.
	extend("one", now.Add(3*time.Minute), now.Add(4*time.Minute), nil, a.ID, b.ID)
	got = get(t, s, func(tx disburse.Tx) ([]disburse.Notification, error) { return tx.Notifications(ctx, "") })
	same(t, "after a renewal too late", []disburse.Notification{a, b, c}, got)
}
