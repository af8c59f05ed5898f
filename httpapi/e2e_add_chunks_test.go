package httpapi_test

import (
	"bytes"
	"regexp"
	"testing"
)

// TestE2EAddInChunks: a large add, checked a chunk at a time while the
// chunks before are inserted (payment_stream.go), answers exactly as the
// add checked whole does, on both stores: the same payments in the same
// order when it succeeds, the same failures, every one of them, when a
// payment of any chunk fails, and nothing added then. Chunks of 2 make
// every request below large.
func TestE2EAddInChunks(t *testing.T) { eachStore(t, testE2EAddInChunks) }

// ids and times differ between two runs; everything else must not.
var idsAndTimes = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\d{4}-\d\d-\d\dT[0-9:.]+Z`)

func testE2EAddInChunks(t *testing.T, store opener) {
	h := startDefaultOn(t, store)
	h.svc.Limits.MaxPaymentsPerBatch = 12
	ok[map[string]any](t, h.register(member, false), 201) // isMember is looked up too
	ext := func(msisdn, amount, id string) string {
		return `{"msisdn":"` + msisdn + `","amount":` + amount + `,"externalId":"` + id + `"}`
	}
	// Each step is one request to the batch, in order: its answer and the
	// batch's payments after it.
	steps := []struct {
		name     string
		clear    bool
		payments []string
	}{
		{"valid", false, []string{pay(member, "1.00"), ext(nonMember, "2.50", "a-1"), pay(third, "3"), ext(member, "4", "a-2"), pay(nonMember, "5")}},
		{"bad in the first and last chunks", false, []string{pay(member, "0"), pay(member, "1"), pay(nonMember, "2"), pay(member, "3"), pay("0712345678", "4")}},
		{"bad in a later chunk only", false, []string{pay(member, "1"), pay(member, "1"), pay(nonMember, "2"), pay(member, "3.001")}},
		{"an external id twice, in two chunks", false, []string{ext(member, "1", "b-1"), pay(member, "1"), ext(nonMember, "2", "b-1")}},
		{"an external id already taken", false, []string{pay(member, "1"), pay(member, "1"), ext(nonMember, "2", "a-2")}},
		{"past the batch's limit", false, []string{pay(member, "1"), pay(member, "1"), pay(member, "1"), pay(member, "1"), pay(member, "1"), pay(member, "1"), pay(member, "1"), pay(member, "1")}},
		{"cleared and replaced", true, []string{ext(member, "6", "a-1"), pay(nonMember, "7"), pay(third, "8")}},
	}
	run := func(chunk int) [][]byte {
		h.svc.AddChunkSize = chunk
		o := h.createOrg("Acme", false, "")
		b := h.createBatch(o, "November")
		var answers [][]byte
		for _, s := range steps {
			r := h.addPayments(o, b.ID, s.clear, s.payments...)
			after := h.do("GET", "/batches/"+b.ID+"/payments", o.token, nil)
			answers = append(answers, []byte(s.name+": "+itoa(r.status)+" "+string(r.body)+" then "+string(after.body)))
		}
		return answers
	}
	whole, inChunks := run(1_000_000), run(2)
	for i, s := range steps {
		w, c := idsAndTimes.ReplaceAll(whole[i], []byte("x")), idsAndTimes.ReplaceAll(inChunks[i], []byte("x"))
		if !bytes.Equal(w, c) {
			t.Errorf("%s:\nchecked whole: %s\nin chunks:     %s", s.name, w, c)
		}
	}
	if !bytes.Contains(whole[1], []byte(`"index":0`)) || !bytes.Contains(whole[1], []byte(`"index":4`)) || !bytes.Contains(whole[1], []byte(": 400 ")) {
		t.Errorf("the bad request's answer lists neither failure: %s", whole[1])
	}
	h.checkLedger()
}
