//go:build !browser

package portal_test

import "testing"

// TestBrowser stands for the browser tests (browser_test.go,
// browser_views_test.go) in a build without the browser tag: chromedp's
// protocol bindings are a large part of a test run on a fresh build
// cache, so they are built only when the browser tests run.
func TestBrowser(t *testing.T) {
	t.Skip("browser tests: DISBURSE_TEST_BROWSER=1 go test -tags browser -run Browser ./portal (as .ci/run does)")
}
