package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/poll"
)

// TestBulkGate: while the process's bulk gate is full, an organisation's
// adds wait at it and are not answered, while small requests (creating a
// batch, reading one, the accounts) are; once the gate frees, the waiting
// adds are served, one whose client hung up ends without holding the
// gate, and the batches submit, the ledger sound (docs/operations.md, "Bulk
// work").
func TestBulkGate(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		gate := bulkgate.New(1)
		h := startOn(t, open, httpapi.Config{AdminToken: adminToken, BulkGate: gate})
		a, b := h.createOrg("Acme", false, "1000.00"), h.createOrg("Bolt", false, "1000.00")
		ba, bb := h.createBatch(a, "a"), h.createBatch(b, "b")

		release, err := gate.Acquire(t.Context(), "the test")
		if err != nil {
			t.Fatal(err)
		}
		answers := make(chan int, 2)
		for _, add := range []struct {
			o     org
			batch string
		}{{a, ba.ID}, {b, bb.ID}} {
			go func() {
				answers <- h.statusOf(t.Context(), "/batches/"+add.batch+"/payments", add.o.token, pay("254712345678", "10.00"))
			}()
		}
		poll.Until(t, func() bool { return gate.Waiting() == 2 }, "both adds waiting at the gate")

		// The small requests do not wait.
		ok[Batch](t, h.do("POST", "/batches", a.token, map[string]string{"name": "small"}), 201)
		ok[Batch](t, h.do("GET", "/batches/"+bb.ID, b.token, nil), 200)
		h.account(b)
		select {
		case status := <-answers:
			t.Fatalf("an add was answered (%d) while the gate was full", status)
		default:
		}

		// A client that hangs up while it waits: HTTP/1.1 tells the
		// server only when it reads the body, so the request keeps its
		// place, and when its turn comes it ends without holding the gate.
		ctx, cancel := context.WithCancel(t.Context())
		gone := make(chan int, 1)
		go func() { gone <- h.statusOf(ctx, "/batches/"+ba.ID+"/payments", a.token, pay("254712345679", "1.00")) }()
		poll.Until(t, func() bool { return gate.Waiting() == 3 }, "the third add waiting")
		cancel()
		<-gone

		release()
		for range 2 {
			if status := <-answers; status != http.StatusOK {
				t.Fatalf("a waiting add answered %d; want 200", status)
			}
		}
		poll.Until(t, func() bool { return gate.Held() == 0 && gate.Waiting() == 0 }, "the hung-up add through the gate")
		for _, s := range []struct {
			o     org
			batch string
		}{{a, ba.ID}, {b, bb.ID}} {
			ok[map[string]any](t, h.do("POST", "/batches/"+s.batch+"/submit", s.o.token, nil), 200)
		}
		if gate.Held() != 0 || gate.Waiting() != 0 {
			t.Fatalf("after every request: held %d, waiting %d", gate.Held(), gate.Waiting())
		}
	})
}

// statusOf posts payments to path, from any goroutine: the status, or 0
// when no answer came (the context ended).
func (h *harness) statusOf(ctx context.Context, path, token, payments string) int {
	req, err := http.NewRequestWithContext(ctx, "POST", h.base+path, strings.NewReader(`{"clearExisting":false,"payments":[`+payments+`]}`))
	if err != nil {
		return 0
	}
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := h.client.Do(req)
	if err != nil {
		return 0
	}
	res.Body.Close()
	return res.StatusCode
}
