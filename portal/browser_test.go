package portal_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// chromium starts Debian's chromium for one test, headless and cut off
// from everything but the test's server. Without chromium the test skips,
// unless DISBURSE_TEST_BROWSER is set (as .ci/run sets it): then it fails.
func chromium(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("DISBURSE_TEST_BROWSER") != "" {
			t.Fatalf("DISBURSE_TEST_BROWSER is set but chromium is not installed: %v", err)
		}
		t.Skip("chromium is not installed: apt-get install -y chromium (set DISBURSE_TEST_BROWSER=1 to make its absence a failure)")
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true), // CI runs as root, where the sandbox cannot start
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900),
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(t.Context(), opts...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	ctx, cancelTimeout := context.WithTimeout(ctx, 90*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelCtx(); cancelAlloc() })
	return ctx
}

// screenshot saves the page to DISBURSE_PORTAL_SCREENSHOTS/name.png when
// that variable names a folder (how docs/portal/ is made).
func screenshot(t *testing.T, ctx context.Context, name string) {
	dir := os.Getenv("DISBURSE_PORTAL_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBrowser drives a real chromium through the portal: the operator
// signs in and changes the settings, then an organisation user uploads a
// CSV with a bad line, sees the failure, uploads a good one and submits.
func TestBrowser(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		ctx := chromium(t)
		w := newWorld(t, open)
		base := w.srv.URL
		fail := func(what string, err error) {
			t.Helper()
			loc, _ := chromedp.Run(ctx, chromedp.Location())
			body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
			t.Fatalf("%s: %v\nat %s:\n%s", what, err, loc, body)
		}
		run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			if err := chromedp.Do(ctx, actions...); err != nil {
				fail(what, err)
			}
		}
		text := func(sel string) string {
			t.Helper()
			s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
			if err != nil {
				fail("read "+sel, err)
			}
			return s
		}
		signIn := func(email, password string) {
			run("sign in as "+email,
				chromedp.Navigate(base+"/portal/"),
				chromedp.WaitVisible(chromedp.CSS(`input[name=email]`)),
				chromedp.SendKeys(chromedp.CSS(`input[name=email]`), email),
				chromedp.SendKeys(chromedp.CSS(`input[name=password]`), password),
				chromedp.Click(chromedp.CSS(`#signin`)),
				chromedp.WaitVisible(chromedp.CSS(`form.signout`)),
			)
		}

		signIn(operatorEmail, w.operatorPassword)
		screenshot(t, ctx, "organisations")
		// htmx, loaded under the strict CSP, filters the list as one types.
		run("search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "other"))
		deadline := time.Now().Add(10 * time.Second)
		for strings.Contains(text(`#org-table`), "Acme Payouts") {
			if time.Now().After(deadline) {
				t.Fatalf("typing in the search did not filter the list:\n%s", text(`#org-table`))
			}
			time.Sleep(100 * time.Millisecond)
		}
		if !strings.Contains(text(`#org-table`), "Other Org") {
			t.Fatalf("the filtered list lost the match:\n%s", text(`#org-table`))
		}
		var status string
		run("change the settings",
			chromedp.Navigate(base+"/portal/organisations/"+w.org.ID),
			chromedp.WaitVisible(chromedp.CSS(`#settings`)),
			chromedp.SetValue(chromedp.CSS(`#settings input[name=reversalPeriodDays]`), "0"),
			chromedp.Click(chromedp.CSS(`#save-settings`)),
			chromedp.WaitVisible(chromedp.CSS(`#reversal-error`)),
		)
		status = text(`#reversal-error`)
		if !strings.Contains(status, "reversal period must be positive") {
			t.Errorf("the error beside the field says %q", status)
		}
		screenshot(t, ctx, "settings-error")
		run("save the settings",
			chromedp.SetValue(chromedp.CSS(`#settings input[name=reversalPeriodDays]`), "14"),
			chromedp.Click(chromedp.CSS(`#settings input[name=referralsEnabled]`)),
			chromedp.Click(chromedp.CSS(`#save-settings`)),
			chromedp.WaitVisible(chromedp.CSS(`p.message`)),
		)
		org, _, err := w.svc.Organisation(t.Context(), w.org.ID)
		if err != nil || org.ReversalPeriod != 14*24*time.Hour || !org.ReferralsEnabled {
			t.Fatalf("the settings form did not save: %v, referrals %v, %v", org.ReversalPeriod, org.ReferralsEnabled, err)
		}
		run("sign out", chromedp.Click(chromedp.CSS(`form.signout button`)), chromedp.WaitVisible(chromedp.CSS(`#signin`)))

		signIn(userEmail, w.userPassword)
		dir := t.TempDir()
		badCSV, goodCSV := filepath.Join(dir, "bad.csv"), filepath.Join(dir, "good.csv")
		os.WriteFile(badCSV, []byte("msisdn,amount\n254712345678,10\n0712345678,5\n"), 0o644)
		os.WriteFile(goodCSV, []byte("msisdn,amount,firstname,referralAmount,referralMsisdn\n254712345678,10,Amina,2,447911123456\n447911123456,5,,,\n"), 0o644)
		screenshot(t, ctx, "organisation")
		var failure string
		run("create a batch and upload a bad CSV",
			chromedp.SendKeys(chromedp.CSS(`input[name=name]`), "Browser batch"),
			chromedp.Click(chromedp.CSS(`#create-batch`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-form`)),
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{badCSV}),
			chromedp.Click(chromedp.CSS(`#upload`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-result`)),
		)
		failure = text(`#upload-result`)
		if !strings.Contains(failure, "Nothing was added") || !strings.Contains(failure, "msisdn must be an international number") || !regexp.MustCompile(`3\s+msisdn`).MatchString(failure) {
			t.Errorf("the bad upload's page says:\n%s", failure)
		}
		screenshot(t, ctx, "upload-failures")
		var result string
		run("upload a good CSV and submit",
			chromedp.SetUploadFiles(chromedp.CSS(`input[name=file]`), []string{goodCSV}),
			chromedp.Click(chromedp.CSS(`#upload`)),
			chromedp.WaitVisible(chromedp.CSS(`#upload-result p.message`)),
		)
		result = text(`#upload-result`)
		if !strings.Contains(result, "2 payment(s) added") {
			t.Errorf("the good upload's page says:\n%s", result)
		}
		run("submit without float", chromedp.Click(chromedp.CSS(`#submit-batch`)), chromedp.WaitVisible(chromedp.CSS(`p.error`)))
		result = text(`p.error`)
		if !strings.Contains(result, "The batch needs 17.00, the account has 0.00") {
			t.Errorf("the shortfall reads %q", result)
		}
		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "100", "float"); err != nil {
			t.Fatal(err)
		}
		run("submit", chromedp.Click(chromedp.CSS(`#submit-batch`)), chromedp.WaitVisible(chromedp.CSS(`p.message`)))
		status = text(`#batch-status`)
		if status != "OPEN" {
			t.Errorf("after submit the batch is %q, want OPEN", status)
		}
		screenshot(t, ctx, "batch")
	})
}
