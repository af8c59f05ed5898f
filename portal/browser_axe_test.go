//go:build browser

package portal_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/disburse/disburse"
)

// axeVersion is the release of axe-core (the npm package) the audit runs,
// pinned so that a rule added later never fails an old commit.
const axeVersion = "4.14.1"

// axe holds axe-core's script, read once for every test of the run.
var axe struct {
	once sync.Once
	src  string
	err  error
}

// axeScript returns axe-core's script, installed by npm into the user's
// cache folder the first time (.ci/run makes sure npm is there). Without
// npm the test skips, unless DISBURSE_TEST_BROWSER is set: then it fails.
func axeScript(t *testing.T) string {
	t.Helper()
	axe.once.Do(func() { axe.src, axe.err = installAxe() })
	if axe.err != nil {
		if os.Getenv("DISBURSE_TEST_BROWSER") != "" {
			t.Fatalf("axe-core %s: %v", axeVersion, axe.err)
		}
		t.Skipf("axe-core %s: %v", axeVersion, axe.err)
	}
	return axe.src
}

// installAxe reads axe.min.js from the cache, installing the package there
// first when it is missing: into a folder of its own, then renamed into
// place, so that a run cut short leaves no half install.
func installAxe() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	dir := filepath.Join(cache, "disburse", "axe-core-"+axeVersion)
	script := filepath.Join(dir, "node_modules", "axe-core", "axe.min.js")
	if _, err := os.Stat(script); errors.Is(err, os.ErrNotExist) {
		npm, err := exec.LookPath("npm")
		if err != nil {
			return "", fmt.Errorf("npm is not installed (apt-get install -y npm): %w", err)
		}
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", err
		}
		tmp, err := os.MkdirTemp(filepath.Dir(dir), "axe-core-install-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(tmp)
		out, err := exec.Command(npm, "install", "--prefix", tmp, "--no-save", "--no-package-lock", "--no-audit", "--no-fund",
			"axe-core@"+axeVersion).CombinedOutput()
		if err != nil {
			return "", fmt.Errorf("npm install axe-core@%s: %v\n%s", axeVersion, err, out)
		}
		if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
			if _, serr := os.Stat(script); serr != nil { // another run put it there first
				return "", err
			}
		}
	}
	src, err := os.ReadFile(script)
	if err != nil {
		return "", err
	}
	if !strings.Contains(string(src[:min(len(src), 200)]), "axe v"+axeVersion) {
		return "", fmt.Errorf("%s is not axe %s: it starts %q", script, axeVersion, src[:min(len(src), 60)])
	}
	return string(src), nil
}

// axeRun runs every rule of axe on the page and returns the violations,
// each with its impact (minor, moderate, serious, critical) and the
// elements it found it in.
const axeRun = `(async () => {
	const r = await axe.run(document, {resultTypes: ["violations"]});
	return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
		nodes: v.nodes.map(n => n.target.join(" ") + ": " + n.failureSummary)}));
})()`

type axeViolation struct {
	ID, Impact, Help string
	Nodes            []string
}

// auditor runs axe on portal pages in a chromium tab of its own, at a
// phone's width (where wide tables scroll), and fails the test on any
// violation above minor.
type auditor struct{ *driver }

// newAuditor starts chromium for t with axe's script src in every page.
func newAuditor(t *testing.T, w *world, src string) *auditor {
	t.Helper()
	a := &auditor{driver: &driver{t: t, ctx: chromium(t), base: w.srv.URL}}
	a.run("a phone's screen, and axe in every page", chromedp.EmulateViewport(390, 844),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := cdp.Call(ctx, tg, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: src})
			return err
		}))
	return a
}

// audit runs axe on the page the tab shows, named what.
func (a *auditor) audit(what string) {
	a.t.Helper()
	a.until(what+" (loaded)", func(string) bool { return true })
	if h, _ := a.tryText("h1"); h == "Something went wrong" {
		a.t.Errorf("%s: the page is the internal error's", what)
	}
	// Nothing may make the page wider than the phone: what is wide
	// scrolls in its own wrapper (docs/portal.md, "Phones, keyboards and
	// screen readers").
	if wider, err := chromedp.Run(a.ctx, chromedp.Evaluate[int](`document.documentElement.scrollWidth - window.innerWidth`)); err != nil || wider > 0 {
		a.t.Errorf("%s: the page is %d px wider than the screen (%v)", what, wider, err)
	}
	violations, err := chromedp.Run(a.ctx, chromedp.Evaluate[[]axeViolation](axeRun, chromedp.EvalAwaitPromise))
	if err != nil {
		a.fail("axe on "+what, err)
	}
	for _, v := range violations {
		msg := fmt.Sprintf("%s: axe %s (%s): %s\n\t%s", what, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
		if v.Impact == "minor" {
			a.t.Log(msg)
		} else {
			a.t.Error(msg)
		}
	}
}

// open goes to path and audits it, and returns the page's status.
func (a *auditor) open(path string) int64 {
	a.t.Helper()
	res, err := chromedp.RunResponse(a.ctx, chromedp.Navigate(a.base+path))
	if err != nil {
		a.fail("open "+path, err)
	}
	a.audit(path)
	return res.Status
}

// crawl audits the pages reached by links from start, within the portal,
// one page of each kind (pageKind), at most limit kinds; each must answer
// 200.
func (a *auditor) crawl(limit int, start string) {
	a.t.Helper()
	queue, seen := []string{start}, map[string]bool{pageKind(start): true}
	for len(queue) > 0 {
		if len(seen)-len(queue) == limit {
			a.t.Fatalf("the crawl reached more than %d kinds of page; still to visit: %v", limit, queue)
		}
		path := queue[0]
		queue = queue[1:]
		if status := a.open(path); status != 200 {
			a.t.Errorf("%s, reached by a link: status %d", path, status)
		}
		links, err := chromedp.Run(a.ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("a[href]"), a => a.href)`))
		if err != nil {
			a.fail("the links of "+path, err)
		}
		for _, link := range links {
			u, err := url.Parse(link)
			if err != nil || "http://"+u.Host != a.base || !strings.HasPrefix(u.Path, "/portal/") || strings.HasPrefix(u.Path, "/portal/static/") ||
				strings.HasSuffix(u.Path, ".csv") { // a download, not a page
				continue
			}
			if kind := pageKind(u.RequestURI()); !seen[kind] {
				seen[kind] = true
				queue = append(queue, u.RequestURI())
			}
		}
	}
	a.t.Logf("the crawl from %s audited %d kinds of page", start, len(seen))
}

// pageKind is what makes pages alike for the audit: the path with every
// id as {id}, and the names in its query.
func pageKind(uri string) string {
	u, _ := url.Parse(uri)
	var names []string
	for name := range u.Query() {
		names = append(names, name)
	}
	slices.Sort(names)
	return idPattern.ReplaceAllString(u.Path, "{id}") + "?" + strings.Join(names, "&")
}

// TestBrowserAccessibility audits every page of the portal with axe-core
// in chromium, on both stores, and fails on any violation above minor:
// the pages each role reaches by links from its home page (so a page
// added to the navigation is audited without a change here), and the
// pages no link leads to, listed below: forms' answers, failures, a
// filtered list. Add a page no link reaches to the lists. Each part has a
// browser of its own.
func TestBrowserAccessibility(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		uploadID, draftID := seedAudit(t, w)
		src := axeScript(t)

		t.Run("signed out", func(t *testing.T) {
			a := newAuditor(t, w, src)
			a.open("/portal/signin")
			a.run("a wrong password",
				chromedp.SendKeys(chromedp.CSS(`input[name=email]`), operatorEmail),
				chromedp.SendKeys(chromedp.CSS(`input[name=password]`), "not the password"),
				chromedp.Click(chromedp.CSS(`#signin`)),
				chromedp.WaitVisible(chromedp.CSS(`p.error`)),
			)
			a.audit("a failed sign-in")
		})

		t.Run("operator", func(t *testing.T) {
			a := newAuditor(t, w, src)
			a.signIn(operatorEmail, w.operatorPassword)
			a.crawl(50, "/portal/")
		})

		t.Run("operator, no link", func(t *testing.T) {
			a := newAuditor(t, w, src)
			a.signIn(operatorEmail, w.operatorPassword)
			for _, path := range []string{
				"/portal/members?msisdn=254712345678",
				"/portal/members?msisdn=0712",
				"/portal/notifications?status=PENDING&channel=SMS",
				"/portal/notifications?status=BOGUS",
				"/portal/batches?status=NOPE",
				"/portal/organisations?q=Acme",
				"/portal/uploads/" + uploadID,
				"/portal/batches/" + disburse.NewID(),
			} {
				a.open(path)
			}
			a.run("a settings error",
				chromedp.Navigate(w.srv.URL+"/portal/organisations/"+w.org.ID),
				chromedp.SetValue(chromedp.CSS(`#settings input[name=reversalPeriodDays]`), "0"),
				chromedp.Click(chromedp.CSS(`#save-settings`)),
				chromedp.WaitVisible(chromedp.CSS(`#reversal-error`)),
			)
			a.audit("a settings error")
		})

		t.Run("organisation user", func(t *testing.T) {
			a := newAuditor(t, w, src)
			a.signIn(userEmail, w.userPassword)
			a.crawl(50, "/portal/")
			for _, path := range []string{"/portal/uploads/" + uploadID, "/portal/batches?status=DRAFT"} {
				a.open(path)
			}
			a.open("/portal/batches/" + draftID)
			screenshot(t, a.ctx, "phone-batch")
			a.run("a new key", chromedp.Navigate(w.srv.URL+"/portal/organisations/"+w.org.ID),
				chromedp.Click(chromedp.CSS(`#issue-key`)), chromedp.WaitVisible(chromedp.CSS(`#new-key`)))
			a.audit("a new key")
		})
	})
}

// seedAudit gives every page of the audit something to show: a draft
// batch whose last upload failed, a submitted batch with a member paid
// and a payee whose leg is held (an SMS waits in the outbox), the member's
// statement, an API key. It returns the failed upload's id and its batch's.
func seedAudit(t *testing.T, w *world) (uploadID, draftID string) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	clearExisting := false
	add := func(batchID string, ps ...disburse.PaymentInput) {
		t.Helper()
		_, _, err := w.svc.AddPayments(ctx, w.org.ID, batchID, disburse.AddPaymentsInput{ClearExisting: &clearExisting, Payments: ps})
		must(err)
	}
	_, err := w.svc.Deposit(ctx, w.orgAccount.ID, "1250000", "float")
	must(err)
	_, _, err = w.svc.RegisterMember(ctx, disburse.Member{Msisdn: "254712345678", Firstname: "Amina"})
	must(err)
	paid, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "November payroll", ExternalID: "nov-2026"})
	must(err)
	add(paid.ID, disburse.PaymentInput{Msisdn: "254712345678", Amount: "319900.99", Firstname: "Amina", Lastname: "Kamau", ExternalID: "p-1"},
		disburse.PaymentInput{Msisdn: "447911123456", Amount: "75.50", Firstname: "Baraka"})
	_, err = w.svc.Submit(ctx, w.org.ID, paid.ID)
	must(err)
	_, _, err = w.keys.CreateAPIKey(ctx, w.org.ID)
	must(err)

	draft, err := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "December draft"})
	must(err)
	add(draft.ID, disburse.PaymentInput{Msisdn: "254712345678", Amount: "10"})
	w.signedIn(t, userEmail, w.userPassword).upload(draft.ID, "msisdn,amount\n0712345678,1\n254712345678,1.001\n254712345678,5,\"x\n")
	u, err := w.office.LastUpload(ctx, "", draft.ID)
	must(err)
	return u.ID, draft.ID
}
