package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
)

// hookReceiver is the organisations' webhook endpoint, on 127.0.0.1: it
// verifies each delivery's signature with its organisation's secret
// (the Standard Webhooks library, not the service's code) and counts
// what arrived, by delivery and by event.
type hookReceiver struct {
	srv *httptest.Server

	mu         sync.Mutex
	verifiers  map[int]*standardwebhooks.Webhook // by organisation
	deliveries map[string][]hookCopy             // by webhook-id
	events     map[string]bool                   // "type resourceId" received
	unsigned   int                               // deliveries whose signature did not verify
}

func newHookReceiver(t *testing.T) *hookReceiver {
	t.Helper()
	h := &hookReceiver{verifiers: map[int]*standardwebhooks.Webhook{}, deliveries: map[string][]hookCopy{}, events: map[string]bool{}}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /hooks/{org}", h.receive)
	h.srv = httptest.NewServer(mux)
	t.Cleanup(h.srv.Close)
	return h
}

// url is organisation i's endpoint.
func (h *hookReceiver) url(i int) string { return fmt.Sprintf("%s/hooks/%d", h.srv.URL, i) }

// trust takes organisation i's signing secret.
func (h *hookReceiver) trust(i int, secret string) {
	wh, err := standardwebhooks.NewWebhook(secret)
	if err != nil {
		panic(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.verifiers[i] = wh
}

func (h *hookReceiver) receive(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // a cut connection: the service tries again
	}
	org, _ := strconv.Atoi(r.PathValue("org"))
	var event struct {
		Type string
		Data struct{ ID string }
	}
	_ = json.Unmarshal(body, &event)
	h.mu.Lock()
	defer h.mu.Unlock()
	if wh := h.verifiers[org]; wh == nil || wh.Verify(body, r.Header) != nil {
		h.unsigned++
	}
	id := r.Header.Get("webhook-id")
	h.deliveries[id] = append(h.deliveries[id], hookCopy{at: time.Now(), from: r.RemoteAddr})
	h.events[event.Type+" "+event.Data.ID] = true
	w.WriteHeader(http.StatusNoContent)
}

// hookCopy is one copy of a delivery: when it arrived, and over which
// connection (its client's address).
type hookCopy struct {
	at   time.Time
	from string
}

// received lists the copies of delivery id that arrived.
func (h *hookReceiver) received(id string) []hookCopy {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.deliveries[id]
}

// unverified says how many deliveries' signatures did not verify.
func (h *hookReceiver) unverified() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.unsigned
}

// got says whether an event of type about resource arrived.
func (h *hookReceiver) got(eventType, resource string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.events[eventType+" "+resource]
}
