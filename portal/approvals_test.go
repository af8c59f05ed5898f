package portal_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// TestApprovalsInThePortal: an organisation's user sets the approval
// threshold; the submit's confirmation says what the click will do; the
// submit asks for an approval the requester cannot decide; a second user
// of the organisation sees the same totals and approves, which pays.
func TestApprovalsInThePortal(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		maker := w.signedIn(t, userEmail, w.userPassword)
		orgPage := "/portal/organisations/" + w.org.ID
		maker.post(orgPage+"/approvalThreshold", url.Values{"approvalThreshold": {"1.001"}}).
			expect(t, http.StatusBadRequest, `id="threshold-error"`, "approvalThreshold must be an amount")
		maker.post(orgPage+"/approvalThreshold", url.Values{"approvalThreshold": {"100"}}).
			expect(t, http.StatusOK, "a submit of 100 or more waits for another user&#39;s approval", `value="100.00"`)
		if org, _, _ := organisations.Get(ctx, w.svc, w.org.ID); org.ApprovalThreshold == nil || *org.ApprovalThreshold != 100_00 {
			t.Fatalf("threshold %v, want 100.00", org.ApprovalThreshold)
		}

		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "1000", "float"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.RegisterMember(ctx, disburse.Member{Msisdn: "254712345678"}); err != nil {
			t.Fatal(err)
		}
		id := maker.createBatch("Payroll")
		maker.upload(id, "msisdn,amount\n254712345678,70\n447911123456,30.50\n447911123456,20\n").expect(t, http.StatusOK, "3 payment(s) added")
		batchPage := "/portal/batches/" + id
		maker.get(batchPage).expect(t, http.StatusOK, `<form method="get" action="`+batchPage+`/submit"><button id="submit-batch">`)

		// The confirmation: counts by membership now, the float after, and
		// that the click sends the batch for approval; the button has the focus.
		maker.get(batchPage+"/submit").expect(t, http.StatusOK,
			`<td class="num" id="paid-count">1</td><td class="num">KES 70.00</td>`,
			`<td class="num" id="held-count">2</td><td class="num">KES 50.50</td>`,
			`<td class="num" id="float-after">KES 879.50</td>`, `id="needs-approval"`, "threshold of 100.00",
			`<button id="confirm" autofocus>Send 3 payments for approval</button>`)
		res := maker.post(batchPage+"/submit", nil)
		res.expect(t, http.StatusOK, "Sent for approval", `<strong id="approval-status">PENDING</strong>`, `id="mine"`)
		if strings.Contains(res.body, `id="approve"`) {
			t.Error("the requester is offered the decision")
		}
		approvalPage := maker.approvalOf(batchPage)
		maker.get(batchPage).expect(t, http.StatusOK, `id="approval-wait"`, approvalPage)
		if page := maker.get(batchPage).body; strings.Contains(page, `id="upload-form"`) || strings.Contains(page, "/delete") {
			t.Error("a batch waiting for approval offers an upload or a delete")
		}
		maker.get(batchPage+"/submit").expect(t, http.StatusConflict, "waits for an approval already")
		maker.upload(id, "msisdn,amount\n254712345678,1\n").expect(t, http.StatusUnprocessableEntity, "waits for approval")
		maker.post(approvalPage+"/approve", nil).expect(t, http.StatusForbidden, "You asked for this approval")
		if f := w.float(t); f != "1000.00" {
			t.Fatalf("float %s after the request, want 1000.00", f)
		}

		// The second user: the list, the same totals, the decision.
		checker := w.signedIn(t, checkerEmail, w.checkerPassword)
		checker.get("/portal/approvals").expect(t, http.StatusOK, approvalPage, "Payroll", "<td class=\"num\">3</td><td class=\"num\">KES 120.50</td>", userEmail)
		checker.get(approvalPage).expect(t, http.StatusOK,
			`<td class="num" id="paid-count">1</td>`, `<td class="num" id="held-count">2</td>`, `<td class="num" id="float-after">KES 879.50</td>`,
			`id="approve"`, `formaction="`+approvalPage+`/reject"`)
		checker.post(approvalPage+"/approve", url.Values{"comment": {strings.Repeat("x", 1001)}}).expect(t, http.StatusBadRequest, "Comment: comment is at most 1000 characters")
		checker.post(approvalPage+"/approve", url.Values{"comment": {"matches the payroll"}}).
			expect(t, http.StatusOK, "Approved and submitted: the batch is OPEN", `<strong id="batch-status">OPEN</strong>`)
		if f := w.float(t); f != "879.50" {
			t.Errorf("float %s after the approval, want 879.50", f)
		}
		checker.get(approvalPage).expect(t, http.StatusOK, "APPROVED by "+checkerEmail, "matches the payroll")
		checker.post(approvalPage+"/reject", nil).expect(t, http.StatusConflict, "the approval is APPROVED already")
		checker.get("/portal/approvals").expect(t, http.StatusOK, "No approvals PENDING")
		checker.get("/portal/approvals?status=APPROVED").expect(t, http.StatusOK, approvalPage)
		checker.get("/portal/audit?action=approval.approved").expect(t, http.StatusOK, checkerEmail)

		// Operators look at batches but decide nothing.
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		op.get("/portal/approvals").expect(t, http.StatusNotFound)
		op.get(approvalPage).expect(t, http.StatusNotFound)
	})
}

// TestApprovalRejectShortfallAndCancel: a rejection frees the batch; an
// approval with too little float is refused and says how much is
// missing; a cancel's confirmation says it cancels the approval too.
func TestApprovalRejectShortfallAndCancel(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		zero := &organisations.ThresholdSetting{Amount: "0"}
		if _, _, err := organisations.UpdateSettings(ctx, w.svc, w.org.ID, organisations.Settings{ApprovalThreshold: zero}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "10", "float"); err != nil {
			t.Fatal(err)
		}
		maker, checker := w.signedIn(t, userEmail, w.userPassword), w.signedIn(t, checkerEmail, w.checkerPassword)
		request := func(name, csv string) (batchPage, approvalPage string) {
			t.Helper()
			id := maker.createBatch(name)
			maker.upload(id, csv).expect(t, http.StatusOK)
			maker.post("/portal/batches/"+id+"/submit", nil).expect(t, http.StatusOK, "Sent for approval")
			return "/portal/batches/" + id, maker.approvalOf("/portal/batches/" + id)
		}

		batchPage, approvalPage := request("Rejected", "msisdn,amount\n447911123456,5\n")
		checker.post(approvalPage+"/reject", url.Values{"comment": {"wrong month"}}).expect(t, http.StatusOK, "Rejected: nothing was paid", "REJECTED by "+checkerEmail, "wrong month")
		maker.get(batchPage).expect(t, http.StatusOK, `id="upload-form"`)

		_, approvalPage = request("Too much", "msisdn,amount\n447911123456,25\n")
		checker.get(approvalPage).expect(t, http.StatusOK, `id="short"`, "The float is KES 15.00 short")
		checker.post(approvalPage+"/approve", nil).expect(t, http.StatusUnprocessableEntity,
			"The batch needs KES 25.00, the account has KES 10.00", "deposit KES 15.00 more", `<strong id="approval-status">REJECTED</strong>`)

		batchPage, approvalPage = request("Cancelled", "msisdn,amount\n447911123456,5\n")
		maker.get(batchPage+"/cancel").expect(t, http.StatusOK, "The approval the batch waits for is cancelled too",
			`<button id="confirm" class="danger" autofocus>Cancel the batch</button>`)
		maker.post(batchPage+"/cancel", nil).expect(t, http.StatusOK, "The batch is CANCELLED")
		checker.get(approvalPage).expect(t, http.StatusOK, "CANCELLED by "+userEmail)
		maker.get(batchPage+"/cancel").expect(t, http.StatusConflict, "it cannot be cancelled")
	})
}

// float reads Acme's default payout account's balance.
func (w *world) float(t *testing.T) string {
	t.Helper()
	accounts, err := organisations.Accounts(t.Context(), w.svc, w.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	return accounts[0].Balance.String()
}

// approvalOf is the page of the approval the batch's page links to.
func (b *browser) approvalOf(batchPage string) string {
	b.t.Helper()
	page := b.get(batchPage).body
	i := strings.Index(page, "/portal/approvals/")
	if i < 0 {
		b.t.Fatalf("the batch's page links to no approval:\n%s", page)
	}
	return "/portal/approvals/" + idPattern.FindString(page[i:])
}
