//go:build browser

package portal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/disburse/disburse"
)

// TestBrowserApproval drives four-eyes approval as two people would: the
// maker sets the organisation's threshold, uploads a batch, reads the
// submit's confirmation (payees paid at once, held, the float after) and
// confirms it from the keyboard; the batch waits for approval. A second
// user of the organisation finds it among the approvals, reads the same
// totals and approves with a comment: the batch is submitted. Then the
// results downloaded as a CSV file from the batch's page, and the
// cancel's confirmation of the OPEN batch.
func TestBrowserApproval(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		ctx := chromium(t)
		w := newWorld(t, open)
		d := &driver{t: t, ctx: ctx, base: w.srv.URL}
		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "1000", "float"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.RegisterMember(t.Context(), disburse.Member{Msisdn: "254712345678"}); err != nil {
			t.Fatal(err)
		}
		csv := filepath.Join(t.TempDir(), "payroll.csv")
		os.WriteFile(csv, []byte("msisdn,amount,firstname\n254712345678,120,Amina\n447911123456,45.50,Baraka\n254722000111,30,Cheru\n"), 0o644)

		d.signIn(userEmail, w.userPassword)
		d.run("set the approval threshold",
			chromedp.WaitVisible(chromedp.CSS(`#approval-settings`)),
			chromedp.SendKeys(chromedp.CSS(`#approval-settings input[name=approvalThreshold]`), "150"),
			chromedp.Click(chromedp.CSS(`#save-threshold`)),
			chromedp.WaitVisible(chromedp.CSS(`p.message`)),
		)
		if m := d.text(`p.message`); !strings.Contains(m, "150 or more waits for another user's approval") {
			t.Errorf("after saving the threshold the page says %q", m)
		}
		d.run("create a batch and upload it",
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "November payroll"),
			chromedp.Click(chromedp.CSS(`#create-batch`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{csv}),
			chromedp.Click(chromedp.CSS(`#upload`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-result p.message`)),
		)
		d.run("open the submit's confirmation", chromedp.Click(chromedp.CSS(`#submit-batch`)), chromedp.WaitVisible(chromedp.CSS(`#confirm`)))
		totals := d.text(`#totals`)
		for _, want := range []string{"Payments\t3\tKES 195.50", "to members now: paid at once\t1\tKES 120.00", "to others: held until they join\t2\tKES 75.50", "Float after the submit\t\tKES 804.50"} {
			if !strings.Contains(totals, want) {
				t.Errorf("the confirmation's totals lack %q:\n%s", want, totals)
			}
		}
		if n := d.text(`#needs-approval`); !strings.Contains(n, "threshold of 150.00") {
			t.Errorf("the confirmation does not say the batch needs approval: %q", n)
		}
		if focused := d.text(`:focus`); !strings.Contains(focused, "Send 3 payments for approval") {
			t.Errorf("the focus is on %q, not the confirm button", focused)
		}
		screenshot(t, ctx, "confirm-submit")
		// Confirmed from the keyboard: the button has the focus.
		d.run("confirm with Enter", chromedp.KeyEvent(kb.Enter), chromedp.WaitVisible(chromedp.CSS(`#approval-status`)))
		if s := d.text(`#approval-status`); s != "PENDING" {
			t.Errorf("after the submit the approval is %q", s)
		}
		if m := d.text(`#mine`); !strings.Contains(m, "another user of the organisation must approve") {
			t.Errorf("the requester's approval page says %q", m)
		}
		if f := w.float(t); f != "1000.00" {
			t.Errorf("float %s after the request, want 1000.00", f)
		}
		d.signOut()

		d.signIn(checkerEmail, w.checkerPassword)
		d.run("the approvals", chromedp.Click(chromedp.CSS(`a[href="/portal/approvals"]`)), chromedp.WaitVisible(chromedp.CSS(`#approvals`)))
		if list := d.text(`#approvals`); !strings.Contains(list, "November payroll\t3\tKES 195.50\t"+userEmail) {
			t.Errorf("the list of approvals reads:\n%s", list)
		}
		screenshot(t, ctx, "approvals")
		d.run("open the approval", chromedp.Click(chromedp.CSS(`#approvals tbody a`)), chromedp.WaitVisible(chromedp.CSS(`#decision`)))
		if same := d.text(`#totals`); same != totals {
			t.Errorf("the approval's totals:\n%s\nare not the confirmation's:\n%s", same, totals)
		}
		d.run("comment", chromedp.SendKeys(chromedp.CSS(`#decision textarea`), "Matches the November payroll."))
		screenshot(t, ctx, "approval")
		d.run("approve", chromedp.Click(chromedp.CSS(`#approve`)), chromedp.WaitVisible(chromedp.CSS(`#batch-status`)))
		if s := d.text(`#batch-status`); s != "OPEN" {
			t.Errorf("after the approval the batch is %q, want OPEN", s)
		}
		if f := w.float(t); f != "804.50" {
			t.Errorf("float %s after the approval, want 804.50", f)
		}
		exported := d.download("download the results", chromedp.Click(chromedp.CSS(`#export`)))
		for _, want := range []string{
			"msisdn,amount,firstname,lastname,externalId,statusCode,isMember,settledAt,referralAmount,referralMsisdn,referralStatusCode,id\n",
			"\n254712345678,120.00,Amina,,,SETTLED,true,2",
			"\n447911123456,45.50,Baraka,,,PENDING,false,,",
		} {
			if !strings.Contains(exported, want) {
				t.Errorf("the downloaded results lack %q:\n%s", want, exported)
			}
		}
		d.run("open the cancel's confirmation", chromedp.Click(chromedp.CSS(`#cancel-batch`)), chromedp.WaitVisible(chromedp.CSS(`#confirm`)))
		if totals := d.text(`#totals`); !strings.Contains(totals, "held: go back to the float\t2\tKES 75.50") || !strings.Contains(totals, "Float after the cancel\t\tKES 880.00") {
			t.Errorf("the cancel's confirmation reads:\n%s", totals)
		}
		screenshot(t, ctx, "confirm-cancel")
	})
}
