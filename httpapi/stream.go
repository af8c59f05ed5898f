package httpapi

import (
	"bufio"
	"encoding/json"
	"net/http"

	"github.com/disburse/disburse"
)

// paymentPages calls visit with payments a page at a time: the ones just
// added, or every payment of a submitted batch read from the store.
type paymentPages func(visit func([]disburse.Payment) error) error

// onePage is a slice of payments already in hand, as paymentPages.
func onePage(payments []disburse.Payment) paymentPages {
	return func(visit func([]disburse.Payment) error) error { return visit(payments) }
}

// writeBatchWithPayments answers add-payments and submit: the Batch with
// its payments (docs/api.md section 4), written a payment at a time as the
// pages come. A submit answers with every payment of the batch, up to a
// million, which neither the JSON nor the payments may hold whole in
// memory (docs/benchmarks.md). The status line goes out with the first
// page, so a failure to read it is still an error response; a failure
// after that can only cut the body short.
func writeBatchWithPayments(w http.ResponseWriter, b disburse.Batch, pages paymentPages) error {
	head, err := json.Marshal(toBatch(b))
	if err != nil {
		return err // nothing written yet: the caller answers with the error
	}
	var out *bufio.Writer
	var item []byte // one payment's JSON, its memory reused for the next
	err = pages(func(payments []disburse.Payment) error {
		for _, p := range payments {
			item = appendPayment(item[:0], p)
			if out == nil {
				out = startPayments(w, head)
			} else {
				out.WriteByte(',')
			}
			out.Write(item)
		}
		return nil
	})
	switch {
	case out == nil && err != nil:
		return err
	case out == nil:
		return writeJSON(w, http.StatusOK, toBatch(b)) // payments is omitted when empty
	case err != nil:
		// Too late for an error response: cut this one short, as
		// net/http does for a handler that gives up mid-body.
		panic(http.ErrAbortHandler)
	}
	out.WriteString("]}")
	_ = out.Flush() // a failed write means the client has gone: no one left to tell
	return nil
}

// startPayments sends the status line and headers of a 200, then head,
// the batch's JSON object, without its closing brace and followed by the
// opening of its payments array.
func startPayments(w http.ResponseWriter, head []byte) *bufio.Writer {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, 64<<10)
	out.Write(head[:len(head)-1])
	out.WriteString(`,"payments":[`)
	return out
}
