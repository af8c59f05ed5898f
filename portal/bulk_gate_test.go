package portal_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/poll"
	"github.com/disburse/disburse/portal"
)

// TestBulkGate: the portal's upload, submit and approval wait their turn
// at the process's bulk gate, the API's: while it is full each waits
// there, unanswered and having changed nothing, while a small page is
// served; once it frees, each is served (docs/operations.md, "Bulk work").
func TestBulkGate(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		gate := bulkgate.New(1)
		w := newWorld(t, open, func(c *portal.Config) { c.BulkGate = gate })
		if _, err := w.svc.Deposit(t.Context(), w.orgAccount.ID, "1000", "float"); err != nil {
			t.Fatal(err)
		}
		maker := w.signedIn(t, userEmail, w.userPassword)
		maker.post("/portal/organisations/"+w.org.ID+"/approvalThreshold", url.Values{"approvalThreshold": {"5"}}).expect(t, http.StatusOK)
		id := maker.createBatch("gated")
		batchPage := "/portal/batches/" + id
		batch := func() disburse.Batch {
			t.Helper()
			b, err := w.svc.Batch(t.Context(), w.org.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}

		// through sends req while the test holds the gate, sees it wait
		// there unanswered while a small page is served, checks unchanged,
		// then frees the gate and returns the answer.
		through := func(what string, b *browser, req *http.Request, unchanged func() bool) answer {
			t.Helper()
			release, err := gate.Acquire(t.Context(), "the test")
			if err != nil {
				t.Fatal(err)
			}
			defer release()
			answered := b.send(req)
			poll.Until(t, func() bool { return gate.Waiting() == 1 }, what+" waiting at the gate")
			maker.get(batchPage).expect(t, http.StatusOK)
			select {
			case a := <-answered:
				t.Fatalf("%s answered (%d) while the gate was full", what, a.status)
			default:
			}
			if !unchanged() {
				t.Errorf("%s changed the batch while it waited at the gate", what)
			}
			release()
			return <-answered
		}

		through("the upload", maker, maker.uploadRequest(id, "", "msisdn,amount\n254712345678,10\n"),
			func() bool { return batch().Summary.PaymentsCount == 0 }).expect(t, http.StatusOK, "1 payment(s) added")
		through("the submit", maker, maker.postRequest(batchPage+"/submit", nil),
			func() bool { return batch().Status == disburse.BatchDraft }).expect(t, http.StatusOK, "Sent for approval")
		checker := w.signedIn(t, checkerEmail, w.checkerPassword)
		approvalPage := maker.approvalOf(batchPage)
		through("the approval", checker, checker.postRequest(approvalPage+"/approve", nil),
			func() bool { return w.float(t) == "1000.00" }).expect(t, http.StatusOK, "Approved and submitted")
		if gate.Held() != 0 || gate.Waiting() != 0 {
			t.Errorf("after every request: held %d, waiting %d", gate.Held(), gate.Waiting())
		}
	})
}
