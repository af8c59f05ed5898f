//go:build browser

package portal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
)

// TestBrowserUploadProgressTransfersOutbox drives chromium through what
// the portal shows of work in progress and of the ledger: an upload of
// 20,000 rows whose progress bar follows the server's reading of the file
// (polled with htmx), the same page with JavaScript off (a plain form
// post, then the result), a payment's page with its legs' transfers, and
// the outbox filtered and paged by its cursor.
func TestBrowserUploadProgressTransfersOutbox(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		ctx := chromium(t)
		w := newWorld(t, open)
		w.svc.Limits.MaxPaymentsPerRequest = 250 // many chunks: the progress moves in steps a poll can see
		d := &driver{t: t, ctx: ctx, base: w.srv.URL}
		dir := t.TempDir()
		const rows = 20_000
		var csv strings.Builder
		csv.WriteString("msisdn,amount,firstname\n")
		for i := range rows {
			fmt.Fprintf(&csv, "2547%08d,%d,Payee%d\n", 12000000+i, 1+i%50, i)
		}
		bigCSV, smallCSV := filepath.Join(dir, "big.csv"), filepath.Join(dir, "small.csv")
		os.WriteFile(bigCSV, []byte(csv.String()), 0o644)
		os.WriteFile(smallCSV, []byte("msisdn,amount\n254712345678,10\n447911123456,5\n"), 0o644)

		d.signIn(userEmail, w.userPassword)
		d.run("create a batch and upload 20,000 rows",
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Progress batch"),
			chromedp.Click(chromedp.CSS(`#create-batch`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{bigCSV}),
			chromedp.Click(chromedp.CSS(`#upload`)),
		)
		// Watch the status the page polls until the answer replaces the page.
		seen := map[string]bool{}
		deadline := time.Now().Add(2 * time.Minute)
		for {
			if s, err := d.tryText(`#upload-result`); err == nil && s != "" {
				break
			}
			if s, err := d.tryText(`#upload-status .progress-text`); err == nil && s != "" {
				seen[s] = true
			}
			if time.Now().After(deadline) {
				d.fail("the upload's answer", fmt.Errorf("none after 2 minutes; the status read %v", seen))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if r := d.text(`#upload-result`); !strings.Contains(r, "20,000 payment(s) added") {
			t.Fatalf("the upload's page says:\n%s", r)
		}
		server := 0
		for s := range seen {
			if strings.HasPrefix(s, "Checking the rows") || strings.HasPrefix(s, "Adding the payments") {
				server++
			}
		}
		if server == 0 {
			t.Errorf("the progress never showed the server reading the file; it read %v", seen)
		}
		t.Logf("the upload's status read: %v", seen)

		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "1000000", "float"); err != nil {
			t.Fatal(err)
		}
		d.confirm("submit", `#submit-batch`, `#batch-status`)
		d.waitText(`#batch-status`, "OPEN")
		d.run("open a payment", chromedp.Click(chromedp.CSS(`#payments tbody tr:first-child a`)), chromedp.WaitVisible(chromedp.CSS(`#transfers-payment`)))
		if tr := d.text(`#transfers-payment`); !strings.Contains(tr, "HOLD") || !strings.Contains(tr, "float: Default") || !strings.Contains(tr, "holding") || !strings.Contains(tr, "1.00") {
			t.Errorf("the payment leg's transfers read:\n%s", tr)
		}
		screenshot(t, ctx, "payment")

		// JavaScript off: the form posts the file as a page, and the answer is a page.
		noScript := func(off bool) chromedp.Action[chromedp.Void] {
			return chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := cdp.Call(ctx, tg, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: off})
				return err
			})
		}
		d.run("upload with JavaScript off",
			noScript(true),
			chromedp.Navigate(w.srv.URL+"/portal/organisations/"+w.org.ID),
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "No script batch"),
			chromedp.Click(chromedp.CSS(`#create-batch`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{smallCSV}),
			chromedp.Click(chromedp.CSS(`#upload`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-result`)),
		)
		if r := d.text(`#upload-result`); !strings.Contains(r, "2 payment(s) added") {
			t.Errorf("with JavaScript off the upload's page says:\n%s", r)
		}
		if loc, _ := chromedp.Run(ctx, chromedp.Location()); !strings.HasSuffix(loc, "/upload") {
			t.Errorf("with JavaScript off the answer is at %s, want the form's own post", loc)
		}
		d.run("JavaScript on again", noScript(false))
		d.signOut()

		// The outbox: 20,000 SMS, filtered and paged.
		d.signIn(operatorEmail, w.operatorPassword)
		d.run("filter the outbox",
			chromedp.Navigate(w.srv.URL+"/portal/notifications"),
			chromedp.WaitVisible(chromedp.CSS(`#notification-filter`)),
			chromedp.SetValue(chromedp.CSS(`select[name=status]`), "PENDING"),
			chromedp.SetValue(chromedp.CSS(`select[name=channel]`), "SMS"),
			chromedp.Click(chromedp.CSS(`#filter-notifications`)),
		)
		d.until("the filtered page", func(loc string) bool { return strings.Contains(loc, "status=PENDING&channel=SMS") })
		first := d.text(`#notifications tbody`)
		if n := strings.Count(first, "PENDING"); n != 100 {
			t.Errorf("the first page shows %d PENDING notifications, want 100", n)
		}
		d.run("older notifications", chromedp.Click(chromedp.CSS(`#older-notifications`)))
		d.until("the older page, with its filters", func(loc string) bool {
			return strings.Contains(loc, "after=") && strings.Contains(loc, "status=PENDING") && strings.Contains(loc, "channel=SMS")
		})
		if second := d.text(`#notifications tbody`); second == first || strings.Count(second, "PENDING") != 100 {
			t.Errorf("the second page repeats the first or is short:\n%s", second)
		}
		d.run("filter by recipient",
			chromedp.SetValue(chromedp.CSS(`input[name=recipient]`), "254712000007"),
			chromedp.SetValue(chromedp.CSS(`select[name=channel]`), ""),
			chromedp.Click(chromedp.CSS(`#filter-notifications`)),
		)
		d.until("the recipient's page", func(loc string) bool { return strings.Contains(loc, "recipient=254712000007") })
		if one := d.text(`#notifications tbody`); strings.Count(one, "254712000007") != 1 {
			t.Errorf("the recipient filter shows:\n%s", one)
		}
		screenshot(t, ctx, "notifications")
	})
}
