package portal_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestLayout: every page links the icon, which is served, and /favicon.ico
// redirects to it; every page starts with a link that skips to its content.
func TestLayout(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		anon := w.browser(t)
		res := anon.get("/favicon.ico")
		res.expect(t, http.StatusMovedPermanently)
		if loc := res.header.Get("Location"); loc != "/portal/static/favicon.svg" {
			t.Fatalf("/favicon.ico redirects to %q", loc)
		}
		icon := anon.get("/portal/static/favicon.svg")
		icon.expect(t, http.StatusOK, "<svg")
		if ct := icon.header.Get("Content-Type"); ct != "image/svg+xml" {
			t.Errorf("the icon's Content-Type is %q", ct)
		}
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		for _, page := range []answer{anon.get("/portal/signin"), op.get("/portal/organisations"), op.get("/portal/organisations/" + w.org.ID),
			op.get("/portal/batches/00000000-0000-7000-8000-00000000000f")} {
			for _, want := range []string{`<link rel="icon" href="/portal/static/favicon.svg" type="image/svg+xml">`,
				`<body>` + "\n" + `<a class="skip" href="#content">Skip to content</a>`, `<main id="content" tabindex="-1">`} {
				if !strings.Contains(page.body, want) {
					t.Errorf("a page (status %d) lacks %s:\n%s", page.status, want, page.body)
				}
			}
		}
	})
}
