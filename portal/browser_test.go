//go:build browser

package portal_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/organisations"
)

// chromium starts Debian's chromium for one test, headless and cut off
// from everything but the test's server. The browser tests are long: they
// run when DISBURSE_TEST_LONG or DISBURSE_TEST_BROWSER is set. Without
// chromium the test skips, unless DISBURSE_TEST_BROWSER is set (as .ci/run
// sets it): then it fails.
func chromium(t *testing.T) context.Context {
	t.Helper()
	if os.Getenv("DISBURSE_TEST_BROWSER") == "" {
		testenv.SkipUnlessLong(t) // drives a browser
	}
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
	ctx, cancelTimeout := context.WithTimeout(ctx, 3*time.Minute)
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

// driver drives one chromium tab through the portal.
type driver struct {
	t    *testing.T
	ctx  context.Context
	base string
}

// fail stops the test, showing where the browser is and what it shows.
func (d *driver) fail(what string, err error) {
	d.t.Helper()
	loc, _ := chromedp.Run(d.ctx, chromedp.Location())
	body, _ := chromedp.Run(d.ctx, chromedp.Text(chromedp.CSS("body")))
	d.t.Fatalf("%s: %v\nat %s:\n%s", what, err, loc, body)
}

// run waits for the page to finish loading, as a person would, and then
// does actions. Without the wait, a click may pick its element from a page
// whose load is still going on, and the browser then forgets the element's
// node id before the click lands ("Could not find node with given id").
func (d *driver) run(what string, actions ...chromedp.Action[chromedp.Void]) {
	d.t.Helper()
	d.until(what+" (the page loaded)", func(string) bool { return true })
	if err := chromedp.Do(d.ctx, actions...); err != nil {
		d.fail(what, err)
	}
}

// text reads an element's text in the page's own JavaScript: a DOM node
// id from before a form's answer replaced the page would be stale. No
// such element reads as "".
func (d *driver) text(sel string) string {
	d.t.Helper()
	s, err := d.tryText(sel)
	if err != nil {
		d.fail("read "+sel, err)
	}
	return s
}

func (d *driver) tryText(sel string) (string, error) {
	js := fmt.Sprintf(`(document.querySelector(%q) || {innerText: ""}).innerText`, sel)
	return chromedp.Run(d.ctx, chromedp.Evaluate[string](js))
}

// until waits for the page at a location that ok accepts, fully loaded.
func (d *driver) until(what string, ok func(location string) bool) {
	d.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		loc, err := chromedp.Run(d.ctx, chromedp.Location())
		state, _ := chromedp.Run(d.ctx, chromedp.Evaluate[string](`document.readyState`))
		if err == nil && ok(loc) && state == "complete" {
			return
		}
		if time.Now().After(deadline) {
			d.fail(what, fmt.Errorf("still at %s (%s) after 30 s", loc, state))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// waitText waits until the element sel holds want: after a click whose
// answer replaces the page, the old page may still be there for a while.
func (d *driver) waitText(sel, want string) {
	d.t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := d.tryText(sel)
		if err == nil && strings.Contains(s, want) {
			return
		}
		if time.Now().After(deadline) {
			d.fail("wait for "+sel, fmt.Errorf("it reads %q, not %q, after 2 minutes", s, want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// confirm clicks button, a link to a confirmation page, then the page's
// confirm button, and waits for done, an element the confirmation does
// not have: each click on a page loaded whole.
func (d *driver) confirm(what, button, done string) {
	d.t.Helper()
	d.run(what+": the confirmation", chromedp.Click(chromedp.CSS(button)), chromedp.WaitVisible(chromedp.CSS(`#confirm`)))
	d.run(what+": confirmed", chromedp.Click(chromedp.CSS(`#confirm`)), chromedp.WaitVisible(chromedp.CSS(done)))
}

func (d *driver) signIn(email, password string) {
	d.t.Helper()
	d.run("sign in as "+email,
		chromedp.Navigate(d.base+"/portal/"),
		chromedp.WaitVisible(chromedp.CSS(`input[name=email]`)),
		chromedp.SendKeys(chromedp.CSS(`input[name=email]`), email),
		chromedp.SendKeys(chromedp.CSS(`input[name=password]`), password),
		chromedp.Click(chromedp.CSS(`#signin`)),
		chromedp.WaitVisible(chromedp.CSS(`form.signout`)),
	)
}

func (d *driver) signOut() {
	d.t.Helper()
	d.run("sign out", chromedp.Click(chromedp.CSS(`form.signout button`)), chromedp.WaitVisible(chromedp.CSS(`#signin`)))
}

// TestBrowser drives a real chromium through the portal: the operator
// signs in and changes the settings, then an organisation user uploads a
// CSV with a bad line, sees the failure, uploads a good one and submits.
func TestBrowser(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		ctx := chromium(t)
		w := newWorld(t, open)
		base := w.srv.URL
		d := &driver{t: t, ctx: ctx, base: base}
		run, text, signIn := d.run, d.text, d.signIn

		signIn(operatorEmail, w.operatorPassword)
		screenshot(t, ctx, "organisations")
		// htmx, loaded under the strict CSP, filters the list as one types.
		run("search", chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "other"))
		// The table is swapped whole, so a read may meet the moment it is
		// gone: read until it shows the filtered list.
		deadline := time.Now().Add(10 * time.Second)
		for {
			list, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#org-table`)))
			if err == nil && strings.Contains(list, "Other Org") && !strings.Contains(list, "Acme Payouts") {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("typing in the search did not filter the list: %v\n%s", err, list)
			}
			time.Sleep(100 * time.Millisecond)
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
		org, _, err := organisations.Get(t.Context(), w.svc, w.org.ID)
		if err != nil || org.ReversalPeriod != 14*24*time.Hour || !org.ReferralsEnabled {
			t.Fatalf("the settings form did not save: %v, referrals %v, %v", org.ReversalPeriod, org.ReferralsEnabled, err)
		}
		run("create an organisation",
			chromedp.Navigate(base+"/portal/organisations"),
			chromedp.SendKeys(chromedp.CSS(`form.narrow input[name=name]`), "Browser Org"),
			chromedp.Click(chromedp.CSS(`#create-organisation`)),
			chromedp.WaitVisible(chromedp.CSS(`#issue-key`)),
		)
		if h := text(`h1`); h != "Browser Org" {
			t.Fatalf("after create the page is %q", h)
		}
		run("deposit",
			chromedp.SendKeys(chromedp.CSS(`td form input[name=amount]`), "500"),
			chromedp.SendKeys(chromedp.CSS(`td form input[name=reference]`), "wire 1"),
			chromedp.Click(chromedp.CSS(`td form button`)),
			chromedp.WaitVisible(chromedp.CSS(`p.message`)),
		)
		if m := text(`p.message`); !strings.Contains(m, "Deposit of KES 500.00 recorded") {
			t.Errorf("after the deposit the page says %q", m)
		}
		run("issue a key", chromedp.Click(chromedp.CSS(`#issue-key`)), chromedp.WaitVisible(chromedp.CSS(`#new-key`)))
		if k := text(`#new-key`); !strings.HasPrefix(k, "dak_") {
			t.Errorf("the new key reads %q", k)
		}
		screenshot(t, ctx, "new-key")
		run("revoke it", chromedp.Click(chromedp.CSS(`form[action$="/revoke"] button`)), chromedp.WaitNotPresent(chromedp.CSS(`#new-key`)))
		if m := text(`p.message`); !strings.Contains(m, "revoked") {
			t.Errorf("after revoking the page says %q", m)
		}
		d.signOut()

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
		d.confirm("submit without float", `#submit-batch`, `#batch-status`) // the confirmation warns in a p.error too
		result = text(`p.error`)
		if !strings.Contains(result, "The batch needs KES 17.00, the account has KES 0.00") {
			t.Errorf("the shortfall reads %q", result)
		}
		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "100", "float"); err != nil {
			t.Fatal(err)
		}
		d.confirm("submit", `#submit-batch`, `p.message`)
		status = text(`#batch-status`)
		if status != "OPEN" {
			t.Errorf("after submit the batch is %q, want OPEN", status)
		}
		screenshot(t, ctx, "batch")
		submitURL, _ := chromedp.Run(ctx, chromedp.Location()) // where the submit form posted
		batchURL := strings.TrimSuffix(submitURL, "/submit")

		// The admin invites a maker, by keyboard; the maker sets a password
		// through the link and is signed in, with no Users page.
		run("invite a maker",
			chromedp.Navigate(base+"/portal/users"),
			chromedp.WaitVisible(chromedp.CSS(`#invite`)),
			chromedp.Focus(chromedp.CSS(`#invite input[value=maker]`)),
			chromedp.KeyEvent(" "),
			chromedp.SendKeys(chromedp.CSS(`#invite input[name=email]`), "maker@acme.example\r"),
			chromedp.WaitVisible(chromedp.CSS(`#invitation-link`)),
		)
		link := text(`#invitation-link`)
		screenshot(t, ctx, "users")
		d.signOut()
		run("accept the invitation",
			chromedp.Navigate(link),
			chromedp.WaitVisible(chromedp.CSS(`#accept-invitation`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "a maker's long password"),
			chromedp.SendKeys(chromedp.CSS(`input[name=confirm]`), "a maker's long password"),
			chromedp.Click(chromedp.CSS(`#accept-invitation`)),
			chromedp.WaitVisible(chromedp.CSS(`form.signout`)),
		)
		if who := text(`form.signout span`); who != "maker@acme.example (maker)" {
			t.Errorf("signed in through the invitation as %q", who)
		}
		if nav := text(`header nav`); strings.Contains(nav, "Users") || !strings.Contains(nav, "Batches") {
			t.Errorf("a maker's menu: %q", nav)
		}

		// The payees register (the operator's members page): the batch closes.
		d.signOut()
		signIn(operatorEmail, w.operatorPassword)
		for _, msisdn := range []string{"254712345678", "447911123456"} {
			run("register "+msisdn,
				chromedp.Navigate(base+"/portal/members"),
				chromedp.SendKeys(chromedp.CSS(`form.narrow input[name=msisdn]`), msisdn),
				chromedp.Click(chromedp.CSS(`form.narrow input[name=appInstalled]`)),
				chromedp.Click(chromedp.CSS(`#register-member`)),
				chromedp.WaitVisible(chromedp.CSS(`p.message`)),
			)
		}
		run("open the batch", chromedp.Navigate(batchURL), chromedp.WaitVisible(chromedp.CSS(`#batch-status`)))
		if status = text(`#batch-status`); status != "CLOSED" {
			t.Errorf("after the payees registered the batch is %q, want CLOSED", status)
		}
		run("the audit log", chromedp.Navigate(base+"/portal/audit"), chromedp.WaitVisible(chromedp.CSS(`#audit`)))
		audit := text(`#audit`)
		for _, want := range []string{"settings.changed", "organisation.created", "account.deposited", "apiKey.issued", "apiKey.revoked", "member.registered", operatorEmail} {
			if !strings.Contains(audit, want) {
				t.Errorf("the audit log lacks %q:\n%s", want, audit)
			}
		}
		screenshot(t, ctx, "audit")
	})
}
