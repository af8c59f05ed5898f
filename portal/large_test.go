package portal_test

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// TestLargeBatch measures (DISBURSE_TEST_PORTAL_LARGE=1, SQLite, or both
// stores with DISBURSE_TEST_POSTGRES_URL) a 100,000-row CSV upload through
// the portal, the opening of a batch page at 10 payments and at
// 1,000,000, and the submit's confirmation of the 1,000,000. Figures go in
// docs/benchmarks.md.
func TestLargeBatch(t *testing.T) {
	if os.Getenv("DISBURSE_TEST_PORTAL_LARGE") == "" {
		t.Skip("set DISBURSE_TEST_PORTAL_LARGE=1 to upload 100,000 rows and open a batch of 1,000,000 payments")
	}
	eachStore(t, func(t *testing.T, open opener) {
		w := newWorld(t, open)
		b := w.signedIn(t, userEmail, w.userPassword)
		var csv strings.Builder
		csv.WriteString("msisdn,amount,firstname,lastname,externalId\n")
		for i := range 100_000 {
			fmt.Fprintf(&csv, "2547%08d,%d.%02d,First%d,Last%d,\n", 12000000+i%1000000, 1+i%500, i%100, i, i)
		}
		small := b.createBatch("ten")
		var ten strings.Builder
		ten.WriteString("msisdn,amount\n")
		for range 10 {
			ten.WriteString("254712345678,1\n")
		}
		b.upload(small, ten.String()).expect(t, http.StatusOK)

		big := b.createBatch("million")
		for round := range 10 {
			start := time.Now()
			b.upload(big, csv.String()).expect(t, http.StatusOK, "100000 payment(s) added")
			if round == 0 {
				t.Logf("upload of a 100,000-row CSV (%d bytes): %v", csv.Len(), time.Since(start))
			}
		}
		got, _ := w.svc.Batch(t.Context(), w.org.ID, big)
		if got.Summary.PaymentsCount != 1_000_000 {
			t.Fatalf("the batch holds %d payments", got.Summary.PaymentsCount)
		}
		timeOpen := func(what, id string) {
			b.get("/portal/batches/"+id).expect(t, http.StatusOK) // warm
			best := time.Hour
			for range 5 {
				start := time.Now()
				b.get("/portal/batches/"+id).expect(t, http.StatusOK)
				best = min(best, time.Since(start))
			}
			t.Logf("open the batch page of %s payments: best of 5 %v", what, best)
		}
		timeOpen("10", small)
		timeOpen("1,000,000", big)
		// The submit's confirmation counts the payees who are members now
		// in one statement over the whole batch (backoffice.Tx.DraftLegs).
		start := time.Now()
		b.get("/portal/batches/"+big+"/submit").expect(t, http.StatusOK, `id="held-count">1,000,000<`)
		t.Logf("the submit's confirmation of 1,000,000 payments: %v", time.Since(start))
		// The last page, by its cursor, costs the same as the first.
		var last disburse.Payment
		_ = w.svc.PaymentPages(t.Context(), w.org.ID, big, func(ps []disburse.Payment) error { last = ps[len(ps)-1]; return nil })
		start = time.Now()
		b.get("/portal/batches/"+big+"?after="+last.ID).expect(t, http.StatusOK)
		t.Logf("open the page after the last of 1,000,000 payments: %v", time.Since(start))
	})
}
