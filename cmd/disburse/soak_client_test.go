package main

import (
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"
)

// soakAnswer is the last answer to a keyed request, after its retries.
type soakAnswer struct {
	status   int
	replayed bool // Idempotent-Replayed: true
	attempts int
	body     []byte
}

// soakRequests counts what the load sent and how it was answered.
type soakRequests struct {
	sent, retried, replayed          atomic.Int64
	cut, unavailable, internal, busy atomic.Int64 // answers retried: no answer, 503, 500, 409 in progress
}

// soakRetryFor bounds the retries of one request: a dead process's claim
// of its key is free within 15 s (docs/idempotency.md), a restart takes a
// second or two, and a fault may strike again meanwhile.
const soakRetryFor = 3 * time.Minute

// keyed sends a write with its Idempotency-Key to a live process, and
// sends it again, with the same key and body, to any live process, for
// as long as the answer says nothing was decided: no answer (the process
// died), 503 (nothing was done), 500 (the outcome was in doubt; the key
// was released) or 409 idempotency_in_progress (a claim still held).
// The retry must replay the first run's answer or run once.
func (r *soakRun) keyed(method, path, token, key, body string) soakAnswer {
	deadline := time.Now().Add(soakRetryFor)
	for attempt := 1; ; attempt++ {
		r.requests.sent.Add(1)
		if attempt > 1 {
			r.requests.retried.Add(1)
		}
		status, replayed, answer := r.attempt(method, path, token, key, body)
		again := true
		switch {
		case status == 0:
			r.requests.cut.Add(1)
		case status == http.StatusServiceUnavailable:
			r.requests.unavailable.Add(1)
		case status == http.StatusInternalServerError:
			r.requests.internal.Add(1)
			r.noteInternal(method, path, answer)
		case status == http.StatusConflict && problemCode(answer) == "idempotency_in_progress":
			r.requests.busy.Add(1)
		default:
			again = false
		}
		if !again || time.Now().After(deadline) {
			if replayed {
				r.requests.replayed.Add(1)
			}
			return soakAnswer{status: status, replayed: replayed, attempts: attempt, body: answer}
		}
		time.Sleep(time.Duration(100+rand.IntN(400)) * time.Millisecond)
	}
}

// attempt sends one request to a live process; status 0 is no answer.
func (r *soakRun) attempt(method, path, token, key, body string) (status int, replayed bool, answer []byte) {
	s := r.fleet.pick()
	if s == nil {
		return 0, false, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, strings.NewReader(body))
	if err != nil {
		r.t.Errorf("%s %s: %v", method, path, err)
		return 0, false, nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, false, nil
	}
	defer resp.Body.Close()
	answer, err = io.ReadAll(resp.Body)
	if err != nil {
		return 0, false, nil
	}
	return resp.StatusCode, resp.Header.Get("Idempotent-Replayed") == "true", answer
}

// problemCode is the code of a problem answer, or "".
func problemCode(answer []byte) string {
	var p struct{ Code string }
	_ = json.Unmarshal(answer, &p)
	return p.Code
}

// noteInternal keeps the first few 500 answers for the report: on
// PostgreSQL a session terminated during its COMMIT leaves the outcome
// in doubt and answers 500 by design (docs/operations.md, "Lost
// connections, retries and 503"); anything else is a finding.
func (r *soakRun) noteInternal(method, path string, answer []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.internals) < 5 {
		r.internals = append(r.internals, method+" "+path+": "+string(answer))
	}
}

// read GETs path from a live process; status 0 is no answer.
func (r *soakRun) read(path, token string) (status int, body []byte) {
	s := r.fleet.pick()
	if s == nil {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.base+path, nil)
	if err != nil {
		return 0, nil
	}
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer resp.Body.Close()
	if body, err = io.ReadAll(resp.Body); err != nil {
		return 0, nil
	}
	return resp.StatusCode, body
}
