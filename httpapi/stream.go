package httpapi

import (
	"bufio"
	"encoding/json"
	"net/http"

	"github.com/disburse/disburse"
)

// writeBatchWithPayments answers add-payments and submit: the Batch with
// its payments (contract section 4), written one payment at a time. A
// submit answers with every payment of the batch, up to a million, and
// that JSON built whole (with its []paymentJSON) held several hundred
// megabytes more than the submit itself (docs/benchmarks.md).
func writeBatchWithPayments(w http.ResponseWriter, b disburse.Batch, payments []disburse.Payment) error {
	if len(payments) == 0 {
		return writeJSON(w, http.StatusOK, toBatch(b)) // payments is omitted when empty
	}
	head, err := json.Marshal(toBatch(b))
	if err != nil {
		return err // nothing written yet: the caller answers with the error
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	out := bufio.NewWriterSize(w, 64<<10)
	// The batch's object without its closing brace, then the payments.
	out.Write(head[:len(head)-1])
	out.WriteString(`,"payments":[`)
	for i, p := range payments {
		item, err := json.Marshal(toPayment(p))
		if err != nil {
			// Too late for an error response: cut this one short, as
			// net/http does for a handler that gives up mid-body.
			panic(http.ErrAbortHandler)
		}
		if i > 0 {
			out.WriteByte(',')
		}
		out.Write(item)
	}
	out.WriteString("]}")
	_ = out.Flush() // a failed write means the client has gone: no one left to tell
	return nil
}
