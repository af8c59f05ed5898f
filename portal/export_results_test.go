package portal_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse"
)

// TestBatchPageLinksToResults: the batch page links to the batch's
// results, and the link gives the organisation's user and the operator
// the file the API's GET /batches/{id}/payments.csv gives (docs/portal.md).
func TestBatchPageLinksToResults(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		ctx := t.Context()
		if _, err := w.svc.Deposit(ctx, w.orgAccount.ID, "100", "float"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.svc.RegisterMember(ctx, disburse.Member{Msisdn: "254712345678"}); err != nil {
			t.Fatal(err)
		}
		b, _ := w.svc.CreateBatch(ctx, w.org.ID, disburse.BatchInput{Name: "results"})
		clearExisting := false
		if _, _, err := w.svc.AddPayments(ctx, w.org.ID, b.ID, disburse.AddPaymentsInput{ClearExisting: &clearExisting, Payments: []disburse.PaymentInput{
			{Msisdn: "254712345678", Amount: "20", Firstname: "=HYPERLINK(1)"}, {Msisdn: "447911123456", Amount: "7.5", ExternalID: "-7"}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := w.svc.Submit(ctx, w.org.ID, b.ID); err != nil {
			t.Fatal(err)
		}
		link := `href="/portal/batches/` + b.ID + `/payments.csv"`
		u := w.signedIn(t, userEmail, w.userPassword)
		u.get("/portal/batches/"+b.ID).expect(t, http.StatusOK, link)

		file := u.get("/portal/batches/" + b.ID + "/payments.csv")
		file.expect(t, http.StatusOK, "254712345678,20.00,'=HYPERLINK(1),,,SETTLED,true,", "447911123456,7.50,,,'-7,PENDING,false,,,,,")
		if ct, cd := file.header.Get("Content-Type"), file.header.Get("Content-Disposition"); ct != "text/csv; charset=utf-8" || cd != "attachment; filename=payments-"+b.ID+".csv" {
			t.Errorf("Content-Type %q, Content-Disposition %q", ct, cd)
		}
		if lines := strings.Count(file.body, "\n"); lines != 3 {
			t.Errorf("%d lines, want the header and 2 payments:\n%s", lines, file.body)
		}
		op := w.signedIn(t, operatorEmail, w.operatorPassword)
		op.get("/portal/batches/"+b.ID).expect(t, http.StatusOK, link)
		if got := op.get("/portal/batches/" + b.ID + "/payments.csv"); got.status != http.StatusOK || got.body != file.body {
			t.Errorf("the operator's file: %d\n%s\nwant the user's:\n%s", got.status, got.body, file.body)
		}

		// The API's file for the same batch, byte for byte.
		_, key, err := w.keys.CreateAPIKey(ctx, w.org.ID)
		if err != nil {
			t.Fatal(err)
		}
		res, err := http.Post(w.srv.URL+"/authentication/getToken", "application/json", strings.NewReader(`{"apiKey":"`+key+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		var tok struct{ AccessToken string }
		err = json.NewDecoder(res.Body).Decode(&tok)
		res.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		api := w.browser(t)
		req, _ := http.NewRequest("GET", w.srv.URL+"/batches/"+b.ID+"/payments.csv", nil)
		req.Header.Set("Authorization", "Bearer "+tok.AccessToken)
		if got := api.do(req); got.status != http.StatusOK || got.body != file.body {
			t.Errorf("the API's file: %d\n%s\nwant the portal's:\n%s", got.status, got.body, file.body)
		}
	})
}
