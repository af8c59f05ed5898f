package portal

import (
	"io/fs"
	"regexp"
	"strings"
	"testing"
)

// TestTablesScroll: every table of every page is in a wrapper that
// scrolls sideways on a narrow screen rather than cutting the table off,
// and that a keyboard can reach and a screen reader names (a region with
// a label): docs/portal.md, "Accessibility".
func TestTablesScroll(t *testing.T) {
	wrapped := regexp.MustCompile(`<div class="scroll"[^>]*>\s*<table`)
	names, _ := fs.Glob(templateFiles, "templates/*.html")
	for _, name := range names {
		b, _ := fs.ReadFile(templateFiles, name)
		src := string(b)
		if n, w := strings.Count(src, "<table"), len(wrapped.FindAllString(src, -1)); n != w {
			t.Errorf("%s: %d tables, %d of them in a scroll wrapper", name, n, w)
		}
		for _, div := range wrapped.FindAllString(src, -1) {
			for _, attr := range []string{`tabindex="0"`, `role="region"`, `aria-label="`} {
				if !strings.Contains(div, attr) {
					t.Errorf("%s: %s lacks %s", name, div, attr)
				}
			}
		}
	}
}
