package httpapi

import (
	"net/http"
	"runtime"

	"github.com/disburse/disburse/internal/bulkgate"
)

// DefaultBulkConcurrency is how many bulk requests (those that add or
// submit many payments: an add, a submit, an approval, which runs the
// submit) one process serves at once when none is set. On a store with
// one writer (SQLite), two: one request's body is read and checked while
// another holds the writer, and one place would serialise them. On
// PostgreSQL, where replicas share the database's processors, one for
// each two processors the process may use (GOMAXPROCS, which follows a
// container's CPU limit), at least one: with two places a
// replica on two cores, another organisation's small request waited 77
// to 109 ms at the 99th percentile behind eight organisations' adds and
// submits; with one, 26 to 30 ms, and the eight finished within their
// bound (docs/benchmarks.md, "Many tenants at once"; docs/operations.md,
// "Bulk work").
func DefaultBulkConcurrency(oneWriter bool) int {
	if oneWriter {
		return 2
	}
	return max(1, runtime.GOMAXPROCS(0)/2)
}

// ServerTimeouts are the HTTP server's ReadTimeout and WriteTimeout,
// which a bulk request's wait at the gate must not use up: they are
// counted again from the moment it is admitted (bulkgate.Deadlines, which
// the portal's bulk work passes too). Zero leaves a deadline as the
// server set it.
type ServerTimeouts = bulkgate.Deadlines

// newBulkGate is the gate of cfg: its own, or one of its concurrency (0:
// the default of a store with many writers; serve and the bench pass
// their store's); nil when the concurrency is negative (no gate: the
// bench compares without one).
func newBulkGate(cfg Config) *bulkgate.Gate {
	switch {
	case cfg.BulkGate != nil:
		return cfg.BulkGate
	case cfg.BulkConcurrency < 0:
		return nil
	case cfg.BulkConcurrency == 0:
		return bulkgate.New(DefaultBulkConcurrency(false))
	default:
		return bulkgate.New(cfg.BulkConcurrency)
	}
}

// bulk passes a bulk request through the process's gate, before its
// Idempotency-Key is claimed and before its body is read: while it waits
// it holds no connection, no key and no CPU, and its client's upload
// waits in the socket. Organisations take turns at the gate
// (internal/bulkgate). A request whose client hangs up while it waits
// leaves the queue when the server learns of it (over HTTP/1.1, only once
// the body is read: it then ends at once, as any request whose client went
// away, and hands its turn on). Small requests never pass here.
func (s *server) bulk(h orgHandlerFunc) orgHandlerFunc {
	if s.bulkGate == nil {
		return h
	}
	return func(w http.ResponseWriter, r *http.Request, orgID string) error {
		r, release, err := s.bulkGate.Admit(w, r, orgID, s.timeouts)
		if err != nil {
			return err
		}
		defer release()
		return h(w, r, orgID)
	}
}
