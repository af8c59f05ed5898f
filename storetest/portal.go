package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/csvpayments"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/portal/backoffice"
)

// PortalStore is a store that is both the domain's and the back
// office's, as sqlstore's is: the portal's tests make the domain's rows
// through the one and read the portal's through the other.
type PortalStore interface {
	disburse.Store
	backoffice.Store
	Auth() auth.Store // for the keys the views list
}

// RunPortal runs the suite of backoffice.Tx, each test in parallel on a
// store of its own. open returns a new, empty, migrated store and arranges
// its closing with t.Cleanup.
func RunPortal(t *testing.T, open func(t *testing.T) PortalStore) {
	tests := []struct {
		name string
		run  func(*testing.T, PortalStore)
	}{
		{"PortalUser", testPortalUser},
		{"OrganisationUsers", testOrganisationUsers},
		{"Invitations", testInvitations},
		{"PortalSession", testPortalSession},
		{"DeleteDeadPortalSessions", testDeleteDeadPortalSessions},
		{"OrganisationSummaries", testOrganisationSummaries},
		{"AllBatches", testAllBatches},
		{"PaymentsAfter", testPaymentsAfter},
		{"APIKeys", testAPIKeys},
		{"DraftLegs", testDraftLegs},
		{"PaymentTransfers", testPaymentTransfers},
		{"NotificationsPage", testNotificationsPage},
		{"Uploads", testUploads},
		{"UploadFailures", testUploadFailures},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// writePortal is write for the back office's port.
func writePortal(t *testing.T, s backoffice.Store, fn func(backoffice.Tx) error) {
	t.Helper()
	writeIn(t, s.WritePortal, fn)
}

// getPortal is get for the back office's port.
func getPortal[T any](t *testing.T, s backoffice.Store, fn func(backoffice.Tx) (T, error)) T {
	t.Helper()
	return getIn(t, s.ReadPortal, fn)
}

// notFoundPortal is notFound for the back office's port.
func notFoundPortal(t *testing.T, s backoffice.Store, what string, fn func(backoffice.Tx) error) {
	t.Helper()
	notFoundIn(t, s.ReadPortal, what, fn)
}

func newPortalUser(w world, email string, role backoffice.Role) backoffice.User {
	u := backoffice.User{ID: disburse.NewID(), Email: email, PasswordHash: "$argon2id$x", Role: role, CreatedAt: t0}
	if role == backoffice.RoleOrganisation {
		u.OrganisationID, u.Roles = w.org.ID, auth.RolesOf(auth.RoleMaker, auth.RoleApprover)
	}
	return u
}

func testPortalUser(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	op := newPortalUser(w, "op@example.org", backoffice.RoleOperator)
	member := newPortalUser(w, "pay@example.org", backoffice.RoleOrganisation)
	writePortal(t, s, func(tx backoffice.Tx) error {
		return errors.Join(tx.InsertPortalUser(ctx, op), tx.InsertPortalUser(ctx, member))
	})
	same(t, "PortalUser", op, getPortal(t, s, func(tx backoffice.Tx) (backoffice.User, error) { return tx.PortalUser(ctx, op.ID) }))
	same(t, "PortalUserByEmail", member, getPortal(t, s, func(tx backoffice.Tx) (backoffice.User, error) {
		return tx.PortalUserByEmail(ctx, member.Email)
	}))
	twin := newPortalUser(w, op.Email, backoffice.RoleOperator)
	err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.InsertPortalUser(ctx, twin) })
	if !errors.Is(err, disburse.ErrDuplicate) {
		t.Errorf("a second user with the same email: %v, want ErrDuplicate", err)
	}
	bad := newPortalUser(w, "bad@example.org", backoffice.RoleOperator)
	bad.OrganisationID = w.org.ID // an operator belongs to no organisation: the schema refuses it
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.InsertPortalUser(ctx, bad) }); err == nil {
		t.Error("an operator with an organisation was accepted")
	}
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.SetPortalPassword(ctx, op.ID, "$argon2id$y") })
	op.PasswordHash = "$argon2id$y"
	same(t, "PortalUser after SetPortalPassword", op, getPortal(t, s, func(tx backoffice.Tx) (backoffice.User, error) { return tx.PortalUser(ctx, op.ID) }))
	notFoundPortal(t, s, "PortalUserByEmail", func(tx backoffice.Tx) error { _, err := tx.PortalUserByEmail(ctx, "nobody@example.org"); return err })
}

func testPortalSession(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	u := newPortalUser(w, "pay@example.org", backoffice.RoleOrganisation)
	sess := backoffice.Session{Hash: secrets.Hash("dps_one"), UserID: u.ID, CreatedAt: t0, LastSeenAt: t0, ExpiresAt: at(time.Hour)}
	writePortal(t, s, func(tx backoffice.Tx) error {
		return errors.Join(tx.InsertPortalUser(ctx, u), tx.InsertPortalSession(ctx, sess))
	})
	sess.User = u
	same(t, "PortalSession", sess, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Session, error) { return tx.PortalSession(ctx, sess.Hash) }))
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.TouchPortalSession(ctx, sess.Hash, at(time.Minute)) })
	sess.LastSeenAt = at(time.Minute)
	same(t, "touched PortalSession", sess, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Session, error) { return tx.PortalSession(ctx, sess.Hash) }))
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.DeletePortalSession(ctx, sess.Hash) })
	notFoundPortal(t, s, "deleted PortalSession", func(tx backoffice.Tx) error { _, err := tx.PortalSession(ctx, sess.Hash); return err })
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.DeletePortalSession(ctx, sess.Hash) }) // twice: no error
}

// testDeleteDeadPortalSessions: expired and idle sessions go, at most
// limit at a time; a live one stays.
func testDeleteDeadPortalSessions(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	u := newPortalUser(w, "op@example.org", backoffice.RoleOperator)
	session := func(name string, lastSeen, expires time.Duration) backoffice.Session {
		return backoffice.Session{Hash: secrets.Hash(name), UserID: u.ID, CreatedAt: t0, LastSeenAt: at(lastSeen), ExpiresAt: at(expires)}
	}
	live := session("live", 50*time.Minute, 2*time.Hour)
	sessions := []backoffice.Session{live, session("expired", 59*time.Minute, time.Hour), session("idle", 0, 2*time.Hour), session("idle2", 10*time.Minute, 2*time.Hour)}
	writePortal(t, s, func(tx backoffice.Tx) error {
		err := tx.InsertPortalUser(ctx, u)
		for _, ss := range sessions {
			err = errors.Join(err, tx.InsertPortalSession(ctx, ss))
		}
		return err
	})
	deleted := 0
	for range 3 {
		var n int
		writePortal(t, s, func(tx backoffice.Tx) (err error) {
			n, err = tx.DeleteDeadPortalSessions(ctx, at(time.Hour), at(30*time.Minute), 2)
			return err
		})
		if n > 2 {
			t.Fatalf("deleted %d, past the limit of 2", n)
		}
		deleted += n
	}
	if deleted != 3 {
		t.Errorf("deleted %d sessions, want the 3 dead ones", deleted)
	}
	live.User = u
	same(t, "the live session", live, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Session, error) { return tx.PortalSession(ctx, live.Hash) }))
}

func testOrganisationSummaries(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w, _ := newWorld(t, s), newWorld(t, s)
	w.org.Name = "Zebra Payouts Ltd"
	write(t, s, func(tx disburse.Tx) error { return tx.UpdateOrganisation(ctx, w.org) })
	w.deposit(t, s, 10_000)
	b := w.batch("held", t0)
	b.Status, b.SubmittedAt, b.Summary.HeldAmount = disburse.BatchOpen, t0, 700
	write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(ctx, b) })
	write(t, s, func(tx disburse.Tx) error { return tx.UpdateBatch(ctx, b) })
	summaries := func(search string) []backoffice.OrganisationSummary {
		return getPortal(t, s, func(tx backoffice.Tx) ([]backoffice.OrganisationSummary, error) {
			return tx.OrganisationSummaries(ctx, search, 100)
		})
	}
	got := summaries("PAYOUTS") // part of the name, in another case
	same(t, "search", []backoffice.OrganisationSummary{{Organisation: w.org, Float: 10_000, Held: 700}}, got)
	if n := len(summaries("")); n != 2 {
		t.Errorf("no search: %d organisations, want 2", n)
	}
	if got := summaries("%"); len(got) != 0 {
		t.Errorf("a %% matched %d names: LIKE's wildcard was not escaped", len(got))
	}
}

func testAllBatches(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	var made []disburse.Batch
	for i := range 4 {
		wd := w
		if i == 1 {
			wd = other
		}
		b := wd.batch("b", at(time.Duration(i)*time.Minute))
		write(t, s, func(tx disburse.Tx) error { return tx.InsertBatch(ctx, b) })
		made = append(made, b)
	}
	batches := func(f backoffice.BatchFilter) []disburse.Batch {
		return getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Batch, error) { return tx.AllBatches(ctx, f) })
	}
	same(t, "every organisation's, newest first", []disburse.Batch{made[3], made[2]}, batches(backoffice.BatchFilter{Limit: 2}))
	same(t, "the next page", []disburse.Batch{made[1], made[0]}, batches(backoffice.BatchFilter{Limit: 2, Before: made[2].ID}))
	same(t, "one organisation's", []disburse.Batch{made[3], made[2], made[0]}, batches(backoffice.BatchFilter{OrganisationID: w.org.ID}))
	same(t, "by status", []disburse.Batch(nil), batches(backoffice.BatchFilter{Status: disburse.BatchOpen}))
}

func testPaymentsAfter(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "paged")
	var ps []disburse.Payment
	for range 5 {
		ps = append(ps, payment(b, msisdnKE, 100))
	}
	insertPayments(t, s, ps...)
	other := w.insertBatch(t, s, "other")
	insertPayments(t, s, payment(other, msisdnKE, 100))
	page := func(after string, n int) []string {
		return ids(getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Payment, error) { return tx.PaymentsAfter(ctx, b.ID, after, n) }))
	}
	same(t, "first page", ids(ps[:2]), page("", 2))
	same(t, "second page", ids(ps[2:4]), page(ps[1].ID, 2))
	same(t, "last page", ids(ps[4:]), page(ps[3].ID, 2))
	same(t, "after the last", []string(nil), page(ps[4].ID, 2))
}

func testAPIKeys(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	k1 := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("k1"), Prefix: "dak_k1", Role: auth.RoleViewer, CreatedAt: t0}
	k2 := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("k2"), Prefix: "dak_k2", Role: auth.RoleAdmin,
		CreatedAt: at(time.Minute), RevokedAt: at(time.Hour)}
	k3 := auth.APIKey{ID: disburse.NewID(), OrganisationID: other.org.ID, Hash: secrets.Hash("k3"), Prefix: "dak_k3", Role: auth.RoleMaker, CreatedAt: t0}
	writeIn(t, s.Auth().Write, func(tx auth.Tx) error {
		return errors.Join(tx.InsertAPIKey(ctx, k1), tx.InsertAPIKey(ctx, k2), tx.InsertAPIKey(ctx, k3))
	})
	same(t, "APIKeys", []auth.APIKey{k2, k1}, getPortal(t, s, func(tx backoffice.Tx) ([]auth.APIKey, error) { return tx.APIKeys(ctx, w.org.ID) }))
}

// testPaymentTransfers: a payment's transfers, both legs, oldest first;
// another payment's and deposits are not among them.
func testPaymentTransfers(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	w.deposit(t, s, 10_000)
	b := w.insertBatch(t, s, "legs")
	p := withReferral(payment(b, msisdnKE, 300), msisdnUK, 50)
	other := payment(b, msisdnKE2, 200)
	insertPayments(t, s, p, other)
	move := func(from, to string, amount disburse.Money, kind disburse.TransferKind, pay disburse.Payment, leg disburse.Leg, when time.Duration) disburse.Transfer {
		return disburse.Transfer{ID: disburse.NewID(), FromAccountID: from, ToAccountID: to, Amount: amount, Kind: kind,
			PaymentID: pay.ID, Leg: leg, CreatedAt: at(when)}
	}
	hold := move(w.payout.ID, w.holding.ID, 300, disburse.TransferHold, p, disburse.LegPayment, time.Minute)
	holdRef := move(w.payout.ID, w.holding.ID, 50, disburse.TransferHold, p, disburse.LegReferral, time.Minute)
	otherHold := move(w.payout.ID, w.holding.ID, 200, disburse.TransferHold, other, disburse.LegPayment, time.Minute)
	reverse := move(w.holding.ID, w.payout.ID, 300, disburse.TransferReverse, p, disburse.LegPayment, time.Hour)
	write(t, s, func(tx disburse.Tx) error {
		return tx.InsertTransfers(ctx, []disburse.Transfer{hold, holdRef, otherHold})
	})
	write(t, s, func(tx disburse.Tx) error { return tx.InsertTransfers(ctx, []disburse.Transfer{reverse}) })
	got := getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Transfer, error) { return tx.PaymentTransfers(ctx, p.ID) })
	want := []disburse.Transfer{hold, holdRef, reverse}
	if hold.ID > holdRef.ID { // one time: by id
		want[0], want[1] = holdRef, hold
	}
	same(t, "PaymentTransfers", want, got)
	same(t, "PaymentTransfers of a payment with none", []disburse.Transfer(nil),
		getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Transfer, error) { return tx.PaymentTransfers(ctx, disburse.NewID()) }))
}

// testNotificationsPage: newest first by id, each filter alone and
// together, paged by the cursor.
func testNotificationsPage(t *testing.T, s PortalStore) {
	ctx := t.Context()
	var ns []disburse.Notification // oldest first: ids are time-ordered
	for i := range 8 {
		n := notification(msisdnKE, t0) // one created_at, as a submit gives them
		if i%2 == 1 {
			n.Recipient, n.Channel = msisdnUK, disburse.ChannelPush
		}
		if i%3 == 0 {
			n.Status, n.SentAt = disburse.NotificationSent, at(time.Second)
		}
		ns = append(ns, n)
	}
	insertNotifications(t, s, ns...)
	page := func(f backoffice.NotificationFilter) []string {
		got := getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Notification, error) { return tx.NotificationsPage(ctx, f) })
		out := make([]string, len(got))
		for i, n := range got {
			out[i] = n.ID
		}
		return out
	}
	pick := func(idx ...int) []string {
		out := make([]string, len(idx))
		for i, j := range idx {
			out[i] = ns[j].ID
		}
		return out
	}
	same(t, "newest first", pick(7, 6, 5), page(backoffice.NotificationFilter{Limit: 3}))
	same(t, "the next page", pick(4, 3, 2), page(backoffice.NotificationFilter{Limit: 3, After: ns[5].ID}))
	same(t, "by recipient", pick(7, 5, 3, 1), page(backoffice.NotificationFilter{Recipient: msisdnUK}))
	same(t, "by status", pick(6, 3, 0), page(backoffice.NotificationFilter{Status: disburse.NotificationSent}))
	same(t, "by channel", pick(6, 4, 2, 0), page(backoffice.NotificationFilter{Channel: disburse.ChannelSMS}))
	same(t, "all three, paged", pick(1), page(backoffice.NotificationFilter{Recipient: msisdnUK, Channel: disburse.ChannelPush,
		Status: disburse.NotificationPending, After: ns[5].ID, Limit: 1}))
	same(t, "nothing matches", []string(nil), page(backoffice.NotificationFilter{Recipient: msisdnKE2}))
	full := getPortal(t, s, func(tx backoffice.Tx) ([]disburse.Notification, error) {
		return tx.NotificationsPage(ctx, backoffice.NotificationFilter{Limit: 1})
	})
	same(t, "a page's rows", []disburse.Notification{ns[7]}, full)

	// Pending ones alone: in the order they fall due (ties by id), paged
	// from the cursor's place in that order.
	late, early := notification(msisdnKE2, at(time.Hour)), notification(msisdnKE2, at(-time.Hour))
	late.Channel = disburse.ChannelPush
	insertNotifications(t, s, late, early)
	pendings := []string{early.ID, ns[1].ID, ns[2].ID, ns[4].ID, ns[5].ID, ns[7].ID, late.ID}
	same(t, "pending, by due time", pendings[:4], page(backoffice.NotificationFilter{Status: disburse.NotificationPending, Limit: 4}))
	same(t, "pending, the next page", pendings[4:], page(backoffice.NotificationFilter{Status: disburse.NotificationPending, After: pendings[3], Limit: 4}))
	same(t, "pending PUSH", []string{ns[1].ID, ns[5].ID, ns[7].ID, late.ID},
		page(backoffice.NotificationFilter{Status: disburse.NotificationPending, Channel: disburse.ChannelPush}))
	same(t, "PUSH, any status, newest first", []string{late.ID, ns[7].ID, ns[5].ID, ns[3].ID, ns[1].ID},
		page(backoffice.NotificationFilter{Channel: disburse.ChannelPush}))
	err := s.ReadPortal(ctx, func(tx backoffice.Tx) error {
		_, err := tx.NotificationsPage(ctx, backoffice.NotificationFilter{Status: disburse.NotificationPending, After: disburse.NewID()})
		return err
	})
	if !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("pending after a cursor no notification has: %v, want ErrNotFound", err)
	}
}

// testUploads: an upload's progress is written, read back, and purged
// after its last change; an id taken is ErrDuplicate.
func testUploads(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	b := w.insertBatch(t, s, "upload")
	u := backoffice.Upload{ID: disburse.NewID(), OrganisationID: w.org.ID, BatchID: b.ID, Phase: backoffice.UploadReceiving,
		Total: 1000, CreatedAt: t0, UpdatedAt: t0}
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.InsertUpload(ctx, u) })
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.InsertUpload(ctx, u) }); !errors.Is(err, disburse.ErrDuplicate) {
		t.Errorf("the same upload twice: %v, want ErrDuplicate", err)
	}
	same(t, "Upload", u, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Upload, error) { return tx.Upload(ctx, u.ID) }))
	u.Phase, u.Done, u.Total, u.Rows, u.UpdatedAt = backoffice.UploadAdding, 40, 90, 90, at(time.Hour)
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.UpdateUpload(ctx, u) })
	same(t, "Upload after UpdateUpload", u, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Upload, error) { return tx.Upload(ctx, u.ID) }))
	old := backoffice.Upload{ID: disburse.NewID(), OrganisationID: w.org.ID, BatchID: b.ID, Phase: backoffice.UploadDone, CreatedAt: t0, UpdatedAt: t0}
	writePortal(t, s, func(tx backoffice.Tx) error { return tx.InsertUpload(ctx, old) })
	var n int
	writePortal(t, s, func(tx backoffice.Tx) (err error) { n, err = tx.DeleteOldUploads(ctx, at(time.Minute), 10); return err })
	if n != 1 {
		t.Errorf("DeleteOldUploads deleted %d, want the 1 unchanged since t0", n)
	}
	notFoundPortal(t, s, "a purged upload", func(tx backoffice.Tx) error { _, err := tx.Upload(ctx, old.ID); return err })
	if err := s.WritePortal(ctx, func(tx backoffice.Tx) error { return tx.UpdateUpload(ctx, old) }); !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("UpdateUpload of a purged upload: %v, want ErrNotFound", err)
	}
}

// testUploadFailures: a done upload keeps its failures and their count;
// a batch's last upload is the one started last; the purge keeps a DRAFT
// batch's last upload while it has failures, and nothing else past its
// time.
func testUploadFailures(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	draft, open := w.insertBatch(t, s, "draft"), w.insertOpenBatch(t, s, "open", time.Time{})
	notFoundPortal(t, s, "the last upload of a batch with none", func(tx backoffice.Tx) error { _, err := tx.LastUpload(ctx, draft.ID); return err })
	upload := func(b disburse.Batch, created time.Duration, failures ...csvpayments.Failure) backoffice.Upload {
		t.Helper()
		u := backoffice.Upload{ID: disburse.NewID(), OrganisationID: w.org.ID, BatchID: b.ID, Phase: backoffice.UploadReceiving,
			CreatedAt: at(created), UpdatedAt: at(created)}
		writePortal(t, s, func(tx backoffice.Tx) error { return tx.InsertUpload(ctx, u) })
		u.Phase, u.Lines, u.FailureCount, u.Failures = backoffice.UploadDone, 20_000, int64(len(failures)), failures
		writePortal(t, s, func(tx backoffice.Tx) error { return tx.UpdateUpload(ctx, u) })
		return u
	}
	failed := upload(draft, 0, csvpayments.Failure{Line: 9999, Message: `extraneous or missing " in quoted-field`},
		csvpayments.Failure{Line: 3, Column: "msisdn", Value: "07 ü", Message: "msisdn must be an international number"})
	same(t, "Upload with failures", failed, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Upload, error) { return tx.Upload(ctx, failed.ID) }))
	last := func(b disburse.Batch) string {
		t.Helper()
		return getPortal(t, s, func(tx backoffice.Tx) (backoffice.Upload, error) { return tx.LastUpload(ctx, b.ID) }).ID
	}
	same(t, "LastUpload", failed.ID, last(draft))
	// Started later, failed too: the last, and the one before is superseded.
	again := upload(draft, time.Minute, csvpayments.Failure{Line: 2, Message: "the row has 3 fields, the header 2"})
	same(t, "LastUpload after another", again.ID, last(draft))
	superseded := failed
	ok := upload(draft, -time.Hour) // started earlier: not the last
	openFailed := upload(open, 0, csvpayments.Failure{Line: 2, Message: "x"})
	var n int
	writePortal(t, s, func(tx backoffice.Tx) (err error) { n, err = tx.DeleteOldUploads(ctx, at(time.Hour), 10); return err })
	if n != 3 {
		t.Errorf("DeleteOldUploads deleted %d, want 3: the superseded, the earlier and the open batch's", n)
	}
	for _, gone := range []backoffice.Upload{superseded, ok, openFailed} {
		notFoundPortal(t, s, "a purged upload", func(tx backoffice.Tx) error { _, err := tx.Upload(ctx, gone.ID); return err })
	}
	same(t, "the draft batch's last failed upload, kept", again, getPortal(t, s, func(tx backoffice.Tx) (backoffice.Upload, error) { return tx.Upload(ctx, again.ID) }))
}

// testDraftLegs: a batch's DRAFT legs counted by their payees' membership
// now, referral legs apart; other statuses and other batches left out.
func testDraftLegs(t *testing.T, s PortalStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	b, other := w.insertBatch(t, s, "b"), w.insertBatch(t, s, "other")
	write(t, s, func(tx disburse.Tx) error {
		_, err := tx.InsertMembers(ctx, []disburse.Member{{Msisdn: msisdnKE, RegisteredAt: t0}, {Msisdn: msisdnUK, RegisteredAt: t0}})
		return err
	})
	deleted := payment(b, msisdnKE, 1_000_00)
	deleted.Status = disburse.PaymentDeleted
	// A payee who was a member when the payment was added is one still:
	// members are never removed, so the store need not look again.
	wasMember := payment(b, msisdnKE3, 16_00)
	wasMember.IsMember = true
	insertPayments(t, s, wasMember,
		payment(b, msisdnKE, 1_00),                              // a member
		withReferral(payment(b, msisdnKE, 2_00), msisdnKE2, 30), // a member, referring a non-member
		withReferral(payment(b, msisdnKE2, 4_00), msisdnUK, 50), // a non-member, referring a member
		payment(b, msisdnUK2, 8_00),                             // a non-member
		deleted,
		pending(payment(b, msisdnUK2, 1_000_00), at(time.Hour)),
		payment(other, msisdnKE, 1_000_00),
	)
	want := backoffice.DraftLegs{
		Paid: backoffice.LegTotal{Count: 3, Amount: 19_00}, Held: backoffice.LegTotal{Count: 2, Amount: 12_00},
		ReferralsPaid: backoffice.LegTotal{Count: 1, Amount: 50}, ReferralsHeld: backoffice.LegTotal{Count: 1, Amount: 30},
	}
	same(t, "DraftLegs", want, getPortal(t, s, func(tx backoffice.Tx) (backoffice.DraftLegs, error) { return tx.DraftLegs(ctx, b.ID) }))
	empty := w.insertBatch(t, s, "empty")
	same(t, "DraftLegs of an empty batch", backoffice.DraftLegs{},
		getPortal(t, s, func(tx backoffice.Tx) (backoffice.DraftLegs, error) { return tx.DraftLegs(ctx, empty.ID) }))
}
