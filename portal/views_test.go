package portal_test

import (
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/portal/backoffice"
)

// TestPaymentPageTransfers: a payment with a referral shows each leg's
// transfers under it, the referral's reversed after its period.
func TestPaymentPageTransfers(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		on, days := true, int64(1)
		if _, _, err := organisations.UpdateSettings(ctx, w.svc, w.org.ID, organisations.Settings{ReferralsEnabled: &on, ReversalPeriodDays: &days}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "100", "float"); err != nil {
			t.Fatal(err)
		}
		b, _ := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "with referral"})
		clearExisting := false
		_, added, err := w.svc.AddPayments(ctx, w.org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting, Payments: []disburse.PaymentInput{
			{Msisdn: "254712345678", Amount: "20", ReferralAmount: "3", ReferralMsisdn: "447911123456"}}})
		if err != nil {
			t.Fatal(err)
		}
		u := w.signedIn(t, userEmail, w.userPassword)
		path := "/portal/payments/" + added[0].ID
		u.get(path).expect(t, http.StatusOK, `id="transfers-payment"`, `id="transfers-referral"`, "No money has moved for this leg: the batch is not submitted")
		if _, err := w.svc.Submit(ctx, w.org.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.RegisterMember(ctx, disburse.Member{Msisdn: "254712345678"}); err != nil {
			t.Fatal(err)
		}
		w.clock.Add(48 * time.Hour)
		if _, err := w.svc.ReverseDue(ctx); err != nil {
			t.Fatal(err)
		}
		u = w.signedIn(t, userEmail, w.userPassword) // two days on, the session is gone
		page := u.get(path)
		page.expect(t, http.StatusOK)
		payment, referral, _ := strings.Cut(page.body, `id="transfers-referral"`)
		for _, want := range []string{"<td>HOLD</td><td>float: Default</td><td>holding</td><td class=\"num\">KES 20.00</td>", "<td>SETTLE</td><td>holding</td><td>wallet 254712345678</td>"} {
			if !strings.Contains(payment, want) {
				t.Errorf("the payment leg's transfers lack %q:\n%s", want, payment)
			}
		}
		for _, want := range []string{"<td>HOLD</td><td>float: Default</td><td>holding</td><td class=\"num\">KES 3.00</td>", "<td>REVERSE</td><td>holding</td><td>float: Default</td>"} {
			if !strings.Contains(referral, want) {
				t.Errorf("the referral leg's transfers lack %q:\n%s", want, referral)
			}
		}
		if strings.Contains(referral, "wallet 254712345678") {
			t.Error("the payment leg's settlement is listed under the referral leg")
		}
	})
}

// TestNotificationsPaged: the outbox page filters by recipient, status
// and channel together, and its "older" link keeps the filters and walks
// every match once, newest first.
func TestNotificationsPaged(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		var ns []disburse.Notification
		now := w.clock.Now()
		for i := range 330 {
			n := disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: "254712345678",
				Message: fmt.Sprintf("message %03d", i), Status: disburse.NotificationSent, Attempts: 1, CreatedAt: now, SentAt: now}
			if i%3 == 0 {
				n.Channel = disburse.ChannelPush
			}
			switch {
			case i%5 == 0:
				n.Status, n.SentAt, n.LastError = disburse.NotificationFailed, time.Time{}, "gateway refused"
			case i%7 == 0: // pending, due in an order of their own
				n.Status, n.SentAt, n.NextAttemptAt = disburse.NotificationPending, time.Time{}, now.Add(time.Duration(i*37%100)*time.Minute)
			}
			if i%2 == 0 {
				n.Recipient = "447911123456"
			}
			ns = append(ns, n)
		}
		if err := w.svc.Store.Write(t.Context(), func(tx disburse.Tx) error { return tx.InsertNotifications(t.Context(), ns) }); err != nil {
			t.Fatal(err)
		}
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		message := regexp.MustCompile(`<td>message (\d{3})</td>`)
		var walkIn func(first string, order []int)
		walk := func(first string, match func(i int) bool) {
			t.Helper()
			var want []int
			for i := len(ns) - 1; i >= 0; i-- {
				if match(i) {
					want = append(want, i)
				}
			}
			walkIn(first, want)
		}
		walkIn = func(first string, order []int) {
			t.Helper()
			var want []string
			for _, i := range order {
				want = append(want, fmt.Sprintf("%03d", i))
			}
			got := op.walk(first, message, len(want)/100+2)
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("%s: walked %d notifications, want %d:\ngot  %v\nwant %v", first, len(got), len(want), got, want)
			}
		}
		walk("/portal/notifications", func(int) bool { return true })
		sent := func(i int) bool { return i%5 != 0 && i%7 != 0 }
		walk("/portal/notifications?status=SENT", sent)
		walk("/portal/notifications?channel=PUSH", func(i int) bool { return i%3 == 0 })
		walk("/portal/notifications?channel=SMS&status=FAILED", func(i int) bool { return i%3 != 0 && i%5 == 0 })
		walk("/portal/notifications?recipient=447911123456&status=SENT&channel=SMS", func(i int) bool { return i%2 == 0 && sent(i) && i%3 != 0 })
		walk("/portal/notifications?recipient=447911123456&status=PENDING", func(i int) bool { return i%2 == 0 && i%5 != 0 && i%7 == 0 })
		// Pending ones alone: in the order they fall due, ties by id.
		var pending []int
		for i := range ns {
			if ns[i].Status == disburse.NotificationPending {
				pending = append(pending, i)
			}
		}
		slices.SortStableFunc(pending, func(a, b int) int { return ns[a].NextAttemptAt.Compare(ns[b].NextAttemptAt) })
		walkIn("/portal/notifications?status=PENDING", pending)
		op.get("/portal/notifications?status=PENDING").expect(t, http.StatusOK, "In the order they fall due")
		walk("/portal/notifications?recipient=254700000000", func(int) bool { return false })
		op.get("/portal/notifications?status=LOST&channel=FAX&after=x").expect(t, http.StatusBadRequest,
			"status must be PENDING, SENT or FAILED", "channel must be SMS or PUSH", "after must be a notification id")
		op.get("/portal/notifications?status=FAILED").expect(t, http.StatusOK, "gateway refused", `<option selected>FAILED</option>`)
	})
}

// TestUploadProgress: the upload id the batch page gives its form is the
// key of the upload's progress, readable by the organisation's users on
// any replica (it is in the database) and done when the answer is; a
// plain form post (JavaScript off) adds the file just the same.
func TestUploadProgress(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		w.svc.Limits.MaxPaymentsPerRequest = 2 // chunks of two rows: several steps in each phase
		b := w.signedIn(t, userEmail, w.userPassword)
		id := b.createBatch("progress")
		form := regexp.MustCompile(`<input type="hidden" name="upload" value="([0-9a-f-]{36})">`).FindStringSubmatch(b.get("/portal/batches/" + id).body)
		if form == nil {
			t.Fatal("the batch page's upload form has no upload id")
		}
		b.get("/portal/uploads/"+form[1]).expect(t, http.StatusNotFound) // not started yet
		b.uploadAs(id, form[1], "msisdn,amount\n254712345678,1\n254712345678,2\n447911123456,3\n").expect(t, http.StatusOK, "3 payment(s) added")
		b.get("/portal/uploads/"+form[1]).expect(t, http.StatusOK, "Done: 3 rows read.", `value="100"`, "/portal/batches/"+id)
		if strings.Contains(b.get("/portal/uploads/"+form[1]).body, "hx-get") {
			t.Error("a finished upload's status still polls")
		}
		up, err := w.office.ScopedUpload(t.Context(), w.org.ID, form[1])
		if err != nil || up.Phase != backoffice.UploadDone || up.Rows != 3 || up.BatchID != id {
			t.Errorf("the stored progress: %+v, %v", up, err)
		}
		// The same page sent twice: the second upload is kept under an id of
		// its own, which the page does not poll, and works.
		b.uploadAs(id, form[1], "msisdn,amount\n254712345678,4\n").expect(t, http.StatusOK, "1 payment(s) added")
		b.get("/portal/uploads/"+form[1]).expect(t, http.StatusOK, "Done: 3 rows read.")
		// A failed check is done too, with its failures in the file's lines.
		next := disburse.NewID()
		b.uploadAs(id, next, "msisdn,amount\n0712345678,1\n254712345678,1\n254712345678,1\n").expect(t, http.StatusBadRequest, "msisdn must be")
		b.get("/portal/uploads/"+next).expect(t, http.StatusOK, "Done: nothing added, 1 failure(s) in the file&#39;s 4 line(s).")
		// While it runs: each phase in words, and the poll for the next look.
		up.Phase, up.Done, up.Total, up.Rows = backoffice.UploadAdding, 4, 8, 8
		if err := w.office.SaveUpload(t.Context(), &up); err != nil {
			t.Fatal(err)
		}
		b.get("/portal/uploads/"+form[1]).expect(t, http.StatusOK, "Adding the payments: 4 of 8 added", `value="50"`, `hx-get="/portal/uploads/`+form[1]+`"`)
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		op.get("/portal/uploads/"+form[1]).expect(t, http.StatusOK, "Adding the payments")
		// A day after its last change the progress is purged, but for the
		// draft batch's last upload, whose failures its page shows.
		if n, err := w.office.PurgeUploads(t.Context()); err != nil || n != 0 {
			t.Errorf("PurgeUploads at once: %d, %v", n, err)
		}
		w.clock.Add(backoffice.UploadKeep + time.Minute)
		if n, err := w.office.PurgeUploads(t.Context()); err != nil || n != 2 {
			t.Errorf("PurgeUploads a day on: %d, %v; want the 2 uploads before the last", n, err)
		}
		if _, err := w.office.ScopedUpload(t.Context(), "", form[1]); disburse.ErrorCode(err) != disburse.CodeNotFound {
			t.Errorf("a purged upload: %v", err)
		}
		b = w.signedIn(t, userEmail, w.userPassword) // the session before has gone idle
		b.get("/portal/uploads/"+next).expect(t, http.StatusOK, "Done: nothing added")
		b.get("/portal/batches/"+id).expect(t, http.StatusOK, "<td>2</td><td>msisdn</td>")
	})
}
