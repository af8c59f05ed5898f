package portal_test

import (
	"net/http"
	"testing"

	"github.com/disburse/disburse"
)

// TestUploadAllOrNothing: an upload adds every row of its file or none
// (docs/portal.md, "Uploading payments"), though the service takes it in
// chunks (two rows here): a file that would take the batch past its limit
// adds nothing, and so does one whose fault shows only once a later chunk
// meets what an earlier one added (an external id used again), on both
// stores.
func TestUploadAllOrNothing(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		w.svc.Limits.MaxPaymentsPerRequest = 2
		w.svc.Limits.MaxPaymentsPerBatch = 6
		b := w.signedIn(t, userEmail, w.userPassword)
		id := b.createBatch("November")
		count := func() int64 {
			t.Helper()
			got, err := w.svc.Batch(t.Context(), w.org.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			return got.Summary.PaymentsCount
		}

		b.upload(id, "msisdn,amount\n254712345678,1\n254712345678,2\n254712345678,3\n").expect(t, http.StatusOK, "3 payment(s) added")

		// 3 + 4 > 6: refused whole, though its first chunks would fit.
		over := "msisdn,amount\n254712345678,1\n254712345678,2\n254712345678,3\n254712345678,4\n"
		b.upload(id, over).expect(t, http.StatusBadRequest, "Nothing was added", "a batch holds at most 6")
		if n := count(); n != 3 {
			t.Errorf("payments after a file past the limit: %d, want the 3 before it", n)
		}

		// The third row's external id is the first's: its chunk meets it
		// only once the first chunk is in.
		again := "msisdn,amount,externalId\n254712345678,1,x-1\n254712345678,2,x-2\n254712345678,3,x-1\n"
		b.upload(id, again).expect(t, http.StatusBadRequest, "Nothing was added", "<td>4</td><td>externalId</td>")
		if n := count(); n != 3 {
			t.Errorf("payments after a file with an external id twice: %d, want the 3 before it", n)
		}

		// A file that fits, in two chunks, goes in whole.
		b.upload(id, "msisdn,amount,externalId\n254712345678,1,y-1\n254712345678,2,y-2\n254712345678,3,y-3\n").expect(t, http.StatusOK, "3 payment(s) added")
		if n := count(); n != 6 {
			t.Errorf("payments: %d, want 6", n)
		}
		got, err := w.svc.Batch(t.Context(), w.org.ID, id)
		if err != nil || got.Summary.PaymentsAmount != disburse.Money(12_00) {
			t.Errorf("batch %+v, %v: want the 6 payments' 12.00 summed once", got.Summary, err)
		}
	})
}
