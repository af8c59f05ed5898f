package portal_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
)

// upload posts csv as the file of the batch's upload form.
func (b *browser) upload(batchID, csv string) answer {
	b.t.Helper()
	return b.uploadAs(batchID, "", csv)
}

// uploadAs uploads with the upload id uploadID, as the batch page's form
// sends it, when it is not empty.
func (b *browser) uploadAs(batchID, uploadID, csv string) answer {
	b.t.Helper()
	return b.do(b.uploadRequest(batchID, uploadID, csv))
}

// uploadRequest is the request of uploadAs, to send another way (send).
func (b *browser) uploadRequest(batchID, uploadID, csv string) *http.Request {
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	if uploadID != "" {
		mw.WriteField("upload", uploadID)
	}
	fw, _ := mw.CreateFormFile("file", "payments.csv")
	fw.Write([]byte(csv))
	mw.Close()
	req, _ := http.NewRequest("POST", b.base+"/portal/batches/"+batchID+"/upload", &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", b.origin)
	return req
}

// walk follows a list's rel="next" links from first, at most maxPages
// pages, and returns the first group of item's every match, in order.
func (b *browser) walk(first string, item *regexp.Regexp, maxPages int) []string {
	b.t.Helper()
	next := regexp.MustCompile(`href="([^"]+)" rel="next"`)
	var seen []string
	path := first
	for pages := 0; path != ""; pages++ {
		if pages == maxPages {
			b.t.Fatalf("%s: more than %d pages", first, maxPages)
		}
		res := b.get(path)
		res.expect(b.t, http.StatusOK)
		for _, m := range item.FindAllStringSubmatch(res.body, -1) {
			seen = append(seen, m[1])
		}
		path = ""
		if m := next.FindStringSubmatch(res.body); m != nil {
			path = strings.ReplaceAll(m[1], "&amp;", "&")
		}
	}
	return seen
}

// createBatch creates a batch through the form and returns its id.
func (b *browser) createBatch(name string) string {
	b.t.Helper()
	res := b.post("/portal/batches", url.Values{"name": {name}})
	res.expect(b.t, http.StatusSeeOther)
	return idPattern.FindString(res.header.Get("Location"))
}

func TestOrganisationUserPaysFromCSV(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		b.get("/portal/").expect(t, http.StatusSeeOther)
		b.get("/portal/organisations/"+w.org.ID).expect(t, http.StatusOK, "Acme Payouts", "0.00", "days (the operator sets it")
		b.post("/portal/batches", url.Values{"name": {""}}).expect(t, http.StatusBadRequest, "name is required")
		id := b.createBatch("November")

		bad := "msisdn,amount,firstname\n0712345678,10,Amina\n254712345678,1.001,Baraka\n254712345678,5,\"Cheru\n"
		res := b.upload(id, bad)
		res.expect(t, http.StatusBadRequest, "Nothing was added",
			"<td>2</td><td>msisdn</td><td><code>0712345678</code></td><td>msisdn must be an international number",
			"<td>3</td><td>amount</td><td><code>1.001</code></td>", "<td>4</td><td>row</td>")
		res = b.upload(id, "msisdn,amount,colour\n254712345678,10,blue\n")
		res.expect(t, http.StatusBadRequest, "<td>1</td><td>colour</td>", "unknown column")

		good := "Msisdn,Amount,firstName,lastname,externalId\n254712345678,150.00,Amina,K,ext-1\n447911123456,75.50,,,\n254722000111,10,,,ext-3\n"
		b.upload(id, good).expect(t, http.StatusOK, "3 payment(s) added", "ext-1", "75.50", "Amina K")
		// The same external id again: the domain's check against the stored payments.
		b.upload(id, "msisdn,amount,externalId\n254712345678,1,ext-1\n").expect(t, http.StatusBadRequest, "<td>2</td><td>externalId</td>")

		payments, _ := lists.Payments(t.Context(), w.svc, w.org.ID, id, disburse.ListQuery{})
		b.post("/portal/payments/"+payments[2].ID+"/delete", nil).expect(t, http.StatusOK, "Payment to 254722000111 deleted")

		b.post("/portal/batches/"+id+"/submit", nil).expect(t, http.StatusUnprocessableEntity, "The batch needs KES 225.50, the account has KES 0.00, so KES 225.50 more")
		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "10000", "float"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.RegisterMember(t.Context(), disburse.Member{Msisdn: "254712345678"}); err != nil {
			t.Fatal(err)
		}
		b.post("/portal/batches/"+id+"/submit", nil).expect(t, http.StatusOK, "Submitted: the batch is OPEN")
		b.get("/portal/organisations/"+w.org.ID).expect(t, http.StatusOK, `<td class="num">KES 9,774.50</td><td class="num">KES 75.50</td>`)
		if _, _, err := w.svc.RegisterMember(t.Context(), disburse.Member{Msisdn: "447911123456"}); err != nil {
			t.Fatal(err)
		}
		b.get("/portal/batches/"+id).expect(t, http.StatusOK, `<strong id="batch-status">CLOSED</strong>`)
		b.get("/portal/payments/"+payments[0].ID).expect(t, http.StatusOK, "SETTLED", "254712345678")
		// Each leg's transfers: a member paid at once; a non-member held, then settled.
		b.get("/portal/payments/"+payments[0].ID).expect(t, http.StatusOK, `<table class="transfers" id="transfers-payment">`,
			"<td>PAY</td><td>float: ", "</td><td>wallet 254712345678</td><td class=\"num\">KES 150.00</td>")
		b.get("/portal/payments/"+payments[1].ID).expect(t, http.StatusOK, "<td>HOLD</td><td>float: ", "</td><td>holding</td><td class=\"num\">KES 75.50</td>",
			"<td>SETTLE</td><td>holding</td><td>wallet 447911123456</td>")
		w.signedIn(t, operatorEmail, w.operatorPassword).get("/portal/payments/"+payments[1].ID).expect(t, http.StatusOK, "<td>HOLD</td>", "<td>SETTLE</td>")

		other := b.createBatch("to cancel")
		b.upload(other, "msisdn,amount\n254712345678,1\n").expect(t, http.StatusOK)
		b.post("/portal/batches/"+other+"/cancel", nil).expect(t, http.StatusOK, "The batch is CANCELLED")
		b.get("/portal/batches?status=CANCELLED").expect(t, http.StatusOK, "to cancel")
		if strings.Contains(b.get("/portal/batches?status=CANCELLED").body, "November") {
			t.Error("the status filter let a CLOSED batch through")
		}
	})
}

// TestPaymentsPaged: the batch page shows a page of payments and a cursor
// to the next; following the cursors visits every payment once, in order.
func TestPaymentsPaged(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		id := b.createBatch("paged")
		var csv strings.Builder
		csv.WriteString("msisdn,amount,externalId\n")
		for i := range 250 {
			fmt.Fprintf(&csv, "254712345678,1,p%03d\n", i)
		}
		b.upload(id, csv.String()).expect(t, http.StatusOK, "250 payment(s) added")
		seen := b.walk("/portal/batches/"+id, regexp.MustCompile(`<td>(p\d{3})</td>`), 3)
		if len(seen) != 250 || seen[0] != "p000" || seen[249] != "p249" {
			t.Fatalf("paging visited %d payments, from %v", len(seen), seen[:min(3, len(seen))])
		}
		for i, s := range seen {
			if s != fmt.Sprintf("p%03d", i) {
				t.Fatalf("payment %d is %s: out of order", i, s)
			}
		}
	})
}
