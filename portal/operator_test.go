package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// TestOperatorPages walks the operator's other pages: accounts, keys,
// members, batches across organisations, notifications, the ledger check.
func TestOperatorPages(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		orgPath := "/portal/organisations/" + w.org.ID
		op.post(orgPath+"/accounts", url.Values{"name": {""}}).expect(t, http.StatusBadRequest, "name is required")
		op.post(orgPath+"/accounts", url.Values{"name": {"Salaries"}}).expect(t, http.StatusOK, "Account added", "Salaries")
		op.post(orgPath+"/keys", nil).expect(t, http.StatusOK, "dak_")
		keys, _ := w.office.APIKeys(ctx, w.org.ID)
		op.post("/portal/keys/"+keys[0].ID+"/revoke", nil).expect(t, http.StatusOK, "revoked")
		if keys, _ = w.office.APIKeys(ctx, w.org.ID); keys[0].RevokedAt.IsZero() {
			t.Error("the key was not revoked")
		}

		// A batch of Acme's to a non-member, submitted: OPEN, an SMS in the outbox.
		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "100", ""); err != nil {
			t.Fatal(err)
		}
		b, _ := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "Acme November"})
		clearExisting := false
		w.svc.AddPayments(ctx, w.org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting, Payments: []disburse.PaymentInput{{Msisdn: "447911123456", Amount: "12.50"}}})
		if _, err := w.svc.Submit(ctx, w.org.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		other, _ := w.svc.CreateBatch(ctx, w.other.ID, disburse.BatchInput{Name: "Other draft"})
		all := op.get("/portal/batches")
		all.expect(t, http.StatusOK, "Acme November", "Other draft")
		// A list of several organisations' batches shows each amount in its
		// organisation's currency.
		ugx, _, err := organisations.Create(ctx, w.svc, organisations.NewOrganisation{Name: "Kampala Payouts", Currency: "UGX"})
		if err != nil {
			t.Fatal(err)
		}
		kampala, _ := w.svc.CreateBatch(ctx, ugx.ID, disburse.BatchInput{Name: "Kampala draft"})
		w.svc.AddPayments(ctx, ugx.ID, kampala.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting, Payments: []disburse.PaymentInput{{Msisdn: "256712345678", Amount: "123456.70"}}})
		op.get("/portal/batches").expect(t, http.StatusOK, `<td class="num">UGX 123,456.70</td>`, `<td class="num">KES 12.50</td>`)
		op.get("/portal/batches/"+kampala.ID).expect(t, http.StatusOK, `<td class="num">UGX 123,456.70</td>`)
		mine := op.get("/portal/batches?organisation=" + w.other.ID)
		mine.expect(t, http.StatusOK, "Other draft")
		if strings.Contains(mine.body, "Acme November") {
			t.Error("the organisation filter let another organisation's batch through")
		}
		op.get("/portal/batches?status=OPEN").expect(t, http.StatusOK, "Acme November")
		op.get("/portal/batches?status=NOPE").expect(t, http.StatusBadRequest, "statusCode must be")
		op.get("/portal/batches/"+other.ID).expect(t, http.StatusOK, "Other draft")
		op.get("/portal/batches/"+b.ID).expect(t, http.StatusOK, "447911123456", "PENDING")

		op.get("/portal/notifications?recipient=447911123456").expect(t, http.StatusOK, "SMS", "PENDING")
		op.get("/portal/notifications?status=SENT").expect(t, http.StatusOK, "No notifications match")

		op.get("/portal/members?msisdn=0712").expect(t, http.StatusOK, "msisdn must be an international number")
		op.get("/portal/members?msisdn=447911123456").expect(t, http.StatusOK, "not a member")
		op.post("/portal/members", url.Values{"msisdn": {"447911123456"}, "appInstalled": {"on"}}).expect(t, http.StatusOK, "registered", "a member", "KES 12.50", "Acme Payouts")
		op.get("/portal/batches/"+b.ID).expect(t, http.StatusOK, `<strong id="batch-status">CLOSED</strong>`)
		op.post("/portal/members", url.Values{"msisdn": {"447911123456"}}).expect(t, http.StatusOK, "was a member already")

		op.get("/portal/ledger").expect(t, http.StatusOK, "The ledger is sound", "Checked at")
		op.get("/portal/audit").expect(t, http.StatusOK, "account.created", "apiKey.revoked", "member.registered", operatorEmail)

		// The organisation's user sees only its own part of the log, keys and all.
		u := w.signedIn(t, userEmail, w.userPassword)
		u.post(orgPath+"/keys", nil).expect(t, http.StatusOK, "dak_")
		log := u.get("/portal/audit")
		log.expect(t, http.StatusOK, "apiKey.issued", userEmail)
		if strings.Contains(log.body, "member.registered</td>") {
			t.Error("an organisation user sees the log of members, which belongs to no organisation")
		}
		u.get(orgPath).expect(t, http.StatusOK, "the operator sets it", `default API version <code id="api-version">2026-11-01</code>`)
		if strings.Contains(u.get(orgPath).body, `id="settings"`) {
			t.Error("an organisation user gets the settings form")
		}
	})
}
