package portal_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"
)

// TestUploadFailuresKept: an upload's failures stay with the batch, shown
// again when its page is drawn again, until the batch's next upload; the
// message counts the file's lines, however the CSV reader took them: a
// 20,000-line file with a stray quote on line 9,999 (which makes the
// reader take every line after it into one field) is 20,000 lines, and
// its one failure, on line 9,999, names the lines it swallowed.
func TestUploadFailuresKept(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		id := b.createBatch("stray quote")
		var file strings.Builder
		file.WriteString("msisdn,amount,firstname\n")
		for line := 2; line <= 20_000; line++ {
			quote := ""
			if line == 9_999 {
				quote = `"` // opens the field, and nothing closes it
			}
			fmt.Fprintf(&file, "2547%08d,%d,%sPayee%d\n", 12000000+line, 1+line%50, quote, line)
		}
		failure := []string{"1 failure(s) in its 20,000 line(s). Nothing was added.",
			"<td>9999</td><td>row</td><td><code></code></td><td>extraneous or missing &#34; in quoted-field: the field quoted on line 9999 runs on to line 20000, " +
				"so lines 9999 to 20000 are read as one field, not as rows; check the quotes on line 9999</td>"}
		b.upload(id, file.String()).expect(t, http.StatusBadRequest, append([]string{"The file was not added: "}, failure...)...)

		// Drawn again, by the user and by an operator: the same failures.
		b.get("/portal/batches/"+id).expect(t, http.StatusOK, append([]string{"The last file uploaded, at "}, failure...)...)
		w.signedIn(t, operatorEmail, w.operatorPassword).get("/portal/batches/"+id).expect(t, http.StatusOK, failure...)

		// Many failures: all counted, the first 1,000 kept and shown, the
		// same after a reload.
		var bad strings.Builder
		bad.WriteString("msisdn,amount\n")
		for range 1_500 {
			bad.WriteString("0712345678,1\n")
		}
		many := []string{"1,500 failure(s) in its 1,501 line(s)", "The first 1,000 are shown."}
		first := b.upload(id, bad.String())
		first.expect(t, http.StatusBadRequest, many...)
		again := b.get("/portal/batches/" + id)
		again.expect(t, http.StatusOK, many...)
		row := regexp.MustCompile(`<tr><td>\d+</td><td>msisdn</td>`)
		if n, m := len(row.FindAllString(first.body, -1)), len(row.FindAllString(again.body, -1)); n != 1000 || m != 1000 {
			t.Errorf("failures listed: %d in the answer, %d drawn again; want 1000", n, m)
		}
		if strings.Contains(again.body, "9999") {
			t.Error("the page shows the upload before the last")
		}

		// The next upload, which goes in, takes the failures away.
		b.upload(id, "msisdn,amount\n254712345678,10\n").expect(t, http.StatusOK, "1 payment(s) added")
		if page := b.get("/portal/batches/" + id); strings.Contains(page.body, `id="upload-result"`) {
			t.Errorf("after a good upload the page still shows a result:\n%s", page.body)
		}
	})
}
