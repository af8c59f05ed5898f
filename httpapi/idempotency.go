package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// Idempotency-Key on every POST of the organisation and operator APIs but
// getToken (docs/idempotency.md). The rules are package idempotency's
// (idempotency.Keys.Begin); here the key is read, the answer recorded,
// and a replay written.

// replayedHeader is what a replay answers with, besides its body.
const replayedHeader = "Idempotent-Replayed"

// keptHeaders are the headers of an answer that a replay repeats; the
// others (X-Request-Id, the rate limit's) belong to each response.
var keptHeaders = []string{"Content-Type", "Cache-Control", "Location", "Retry-After", "WWW-Authenticate"}

// How a route's answer is replayed.
type replayKind int

const (
	replayKept   replayKind = iota // the answer is kept, byte for byte
	replaySubmit                   // a 200 is rebuilt: the batch with every payment, which may be a million
)

// idemHandler is a handler run under an Idempotency-Key: s is a copy of
// the server whose Service carries the key's claim into its transaction.
type idemHandler func(s *server, w http.ResponseWriter, r *http.Request) error

// orgIdempotent makes an organisation route idempotent, its keys scoped to
// the organisation.
func (s *server) orgIdempotent(kind replayKind, h func(s *server, w http.ResponseWriter, r *http.Request, orgID string) error) orgHandlerFunc {
	return func(w http.ResponseWriter, r *http.Request, orgID string) error {
		return s.idempotent(w, r, orgID, kind, func(s *server, w http.ResponseWriter, r *http.Request) error { return h(s, w, r, orgID) })
	}
}

// adminIdempotent makes an operator route idempotent, its keys scoped to the operator.
func (s *server) adminIdempotent(h idemHandler) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.idempotent(w, r, idempotency.OperatorScope, replayKept, h)
	}
}

// idempotent runs h once per Idempotency-Key: without the header it just
// runs; with it, the first request claims the key, runs, and leaves its
// answer for a replay.
func (s *server) idempotent(w http.ResponseWriter, r *http.Request, scope string, kind replayKind, h idemHandler) error {
	values, present := r.Header["Idempotency-Key"]
	if !present {
		return h(s, w, r)
	}
	if len(values) != 1 {
		return disburse.Invalid("Idempotency-Key", "", "send one Idempotency-Key header")
	}
	if err := idempotency.ValidKey(values[0]); err != nil {
		return err
	}
	body, err := bodyBytes(r)
	if err != nil {
		return err
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	req := idempotency.Request{Scope: scope, Key: values[0], Method: r.Method, Path: r.URL.Path, Body: body, Lease: s.idempotencyLease,
		Render: answerRenderers[r.Pattern]}
	if kind == replaySubmit {
		req.RefKind, req.RefID = refSubmit, r.PathValue("id")
	}
	claim, replay, err := s.keys.Begin(r.Context(), req)
	if err != nil {
		return err
	}
	if replay != nil {
		return s.replay(w, r, scope, replay)
	}
	claimed := *s
	claimed.svc = s.keys.Claimed(claim)
	claimed.auth = s.auth.Claimed(claim)
	if s.hooks != nil {
		claimed.hooks = s.hooks.Claimed(claim)
	}
	rec := &answerRecorder{ResponseWriter: w, rebuilt: kind == replaySubmit}
	// The answer is kept even when the client has gone, and whatever the
	// handler did: a panic (a stream cut short) releases the key as a 500.
	ctx := context.WithoutCancel(r.Context())
	finished := false
	defer func() {
		if !finished {
			s.finish(ctx, r, claim, idempotency.Answer{Status: http.StatusInternalServerError})
		}
	}()
	if err := h(&claimed, rec, r); err != nil {
		s.writeError(rec, r, err)
	}
	finished = true
	s.finish(ctx, r, claim, idempotency.Answer{Status: rec.status(), Header: rec.kept, Body: rec.body.Bytes(), Rebuilt: rec.rebuilt && !rec.keepBody})
	return nil
}

// finish keeps the answer; a failure to keep it is logged, since the
// client has its answer already, and the key has the one made in the
// work's transaction (or, for a submit, the batch to rebuild it from).
// A 4xx whose keeping fails, where nothing committed, runs again on a
// retry once the lease is over.
func (s *server) finish(ctx context.Context, r *http.Request, c *idempotency.Claim, a idempotency.Answer) {
	if err := s.keys.Finish(ctx, c, a); err != nil {
		s.log.ErrorContext(ctx, "keeping an idempotent answer failed", "request_id", requestIDFrom(r.Context()), "route", s.route(r), "err", err)
	}
}

// refSubmit is what a submit's replay rebuilds its answer from
// (idempotency.Key.RefKind): the batch and its payments.
const refSubmit = "submit"

// replay writes a key's answer again, marked Idempotent-Replayed.
func (s *server) replay(w http.ResponseWriter, r *http.Request, scope string, rp *idempotency.Replay) error {
	w.Header().Set(replayedHeader, "true")
	// A submit that requested an approval kept its 202, made in its
	// transaction; one that paid is rebuilt (its status is 0 when the
	// process stopped before keeping it).
	if rp.RefKind == refSubmit && (rp.Status == 0 || rp.Status == http.StatusOK) {
		b, err := s.svc.Batch(r.Context(), scope, rp.RefID)
		if err != nil {
			return err
		}
		return writeBatchWithPayments(w, b, func(visit func([]disburse.Payment) error) error {
			return s.svc.PaymentPages(r.Context(), scope, b.ID, visit)
		})
	}
	if rp.Status == 0 { // no answer, nothing to rebuild it from: cannot be
		w.Header().Del(replayedHeader)
		return errors.New("idempotency: a key with no answer to replay")
	}
	for k, v := range rp.Header {
		w.Header().Set(k, v)
	}
	w.WriteHeader(rp.Status)
	_, _ = w.Write(rp.Body)
	return nil
}

// answerRecorder passes an answer on and keeps what a replay needs of it:
// the body too, unless the route's 200 is rebuilt on replay (a submit's
// batch with every payment); its other answers (an approval requested,
// failures) are small, and kept.
type answerRecorder struct {
	http.ResponseWriter
	rebuilt     bool // the route's 200 answers are rebuilt on replay
	keepBody    bool
	code        int
	wroteHeader bool
	kept        map[string]string
	body        bytes.Buffer
}

func (a *answerRecorder) WriteHeader(code int) {
	if !a.wroteHeader {
		a.code, a.wroteHeader = code, true
		a.keepBody = !a.rebuilt || code != http.StatusOK
		a.kept = map[string]string{}
		for _, k := range keptHeaders {
			if v := a.Header().Get(k); v != "" {
				a.kept[k] = v
			}
		}
	}
	a.ResponseWriter.WriteHeader(code)
}

func (a *answerRecorder) Write(b []byte) (int, error) {
	if !a.wroteHeader {
		a.WriteHeader(http.StatusOK)
	}
	if a.keepBody {
		a.body.Write(b)
	}
	return a.ResponseWriter.Write(b)
}

func (a *answerRecorder) status() int {
	if !a.wroteHeader {
		return http.StatusOK
	}
	return a.code
}

// Unwrap lets http.ResponseController reach the connection.
func (a *answerRecorder) Unwrap() http.ResponseWriter { return a.ResponseWriter }

// bodyBytes reads the whole body, which the key's fingerprint covers and
// the handler then decodes from memory: a body past the limit is a 413,
// one cut short a 400.
func bodyBytes(r *http.Request) ([]byte, error) {
	var buf bytes.Buffer
	_, err := buf.ReadFrom(r.Body)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, payloadTooLarge(tooLarge.Limit)
	case err != nil:
		return nil, disburse.Invalid("Body", "", "the body could not be read to its end")
	}
	return buf.Bytes(), nil
}
