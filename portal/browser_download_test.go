//go:build browser

package portal_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
)

// download runs the actions, a click on a link that downloads a file, as
// a person would, and returns the file the browser saved: Chromium saves
// it under its own name into a directory of the test's, and the file is
// complete once no partial ".crdownload" file is left beside it.
func (d *driver) download(what string, click ...chromedp.Action[chromedp.Void]) string {
	d.t.Helper()
	dir := d.t.TempDir()
	allow := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdpbrowser.SetDownloadBehavior, cdpbrowser.SetDownloadBehaviorParams{
			Behavior: cdpbrowser.SetDownloadBehaviorBehaviorAllow, DownloadPath: dir})
		return err
	})
	d.run(what, append([]chromedp.Action[chromedp.Void]{allow}, click...)...)
	deadline := time.Now().Add(time.Minute)
	for {
		if body, ok := savedFile(dir); ok {
			return body
		}
		if time.Now().After(deadline) {
			d.fail(what, fmt.Errorf("no file was saved in a minute"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// savedFile is the one complete file in dir, if the browser is done.
func savedFile(dir string) (string, bool) {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) != 1 || strings.HasSuffix(entries[0].Name(), ".crdownload") {
		return "", false
	}
	body, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	return string(body), err == nil && len(body) > 0
}
