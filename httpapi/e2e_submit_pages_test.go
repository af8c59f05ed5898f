package httpapi_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestE2ESubmitAnswersEveryPage: a submit moves the batch and reads its
// answer a page at a time (the harness's pages are 3 payments), and the
// answer is still every non-deleted payment, in the order added, with its
// new status (docs/api.md section 4), whatever the pages' boundaries and the
// deleted payments among them.
func TestE2ESubmitAnswersEveryPage(t *testing.T) {
	eachStore(t, func(t *testing.T, store opener) {
		testE2ESubmitAnswersEveryPage(t, startDefaultOn(t, store))
	})
}

func testE2ESubmitAnswersEveryPage(t *testing.T, h *harness) {
	a := h.createOrg("Acme", false, "1000.00")
	ok[Member](t, h.register(member, false), 201)
	b := h.createBatch(a, "pages")
	// Two payments replaced by clearExisting, and one deleted among the
	// eight that stay: DELETED rows before and inside the pages.
	ok[Batch](t, h.addPayments(a, b.ID, false, pay(member, "1"), pay(nonMember, "2")), 200)
	var list []string
	for i := range 8 {
		to := member
		if i%2 == 1 {
			to = nonMember
		}
		list = append(list, pay(to, itoa(10+i)))
	}
	added := ok[Batch](t, h.addPayments(a, b.ID, true, list...), 200).Payments
	ok[Payment](t, h.do("DELETE", "/payments/"+added[4].ID, a.token, nil), 200)

	got := ok[Batch](t, h.do("POST", "/batches/"+b.ID+"/submit", a.token, nil), 200)
	var want []string
	for i, p := range added {
		if i == 4 {
			continue
		}
		status := "SETTLED"
		if p.Msisdn == nonMember {
			status = "PENDING"
		}
		want = append(want, p.ID+" "+p.Amount.String()+" "+status)
	}
	var answered []string
	for _, p := range got.Payments {
		answered = append(answered, p.ID+" "+p.Amount.String()+" "+p.StatusCode)
	}
	if diff := cmp.Diff(want, answered); diff != "" {
		t.Errorf("submit's payments (-want +got):\n%s", diff)
	}
	if got.Summary.PaymentsCount != 7 || got.Summary.SettledCount != 3 || got.Summary.PendingCount != 4 {
		t.Errorf("summary %+v", got.Summary)
	}
	// The answer is the payments as the submit wrote them (spooled, not
	// read back): every field as the store now has it.
	var stored []Payment
	for _, p := range ok[[]Payment](t, h.do("GET", "/batches/"+b.ID+"/payments", a.token, nil), 200) {
		if p.StatusCode != "DELETED" {
			stored = append(stored, p)
		}
	}
	if diff := cmp.Diff(stored, got.Payments); diff != "" {
		t.Errorf("submit's payments against the stored ones (-stored +answered):\n%s", diff)
	}
}
