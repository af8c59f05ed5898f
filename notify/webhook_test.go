package notify

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/webhooks"
)

// TestWebhookRefusesPrivateAddresses: unless private endpoints are allowed,
// the sender does not connect to a loopback address, even though the URL
// was accepted once (a name can resolve elsewhere later); a redirect is
// not followed but counted as a failed attempt.
func TestWebhookRefusesPrivateAddresses(t *testing.T) {
	var hits atomic.Int32
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/moved" {
			http.Redirect(w, r, "/elsewhere", http.StatusFound)
		}
	}))
	defer rcv.Close()
	msg := webhooks.Message{ID: disburse.NewID(), URL: rcv.URL, Timestamp: time.Now(), Signature: "v1,x", Body: []byte(`{}`)}

	status, err := NewWebhook(false).Send(t.Context(), msg)
	if !errors.Is(err, ErrPrivateAddress) || status != 0 || hits.Load() != 0 {
		t.Errorf("private endpoint: status %d, err %v, %d requests; want refused before connecting", status, err, hits.Load())
	}
	if status, err := NewWebhook(true).Send(t.Context(), msg); err != nil || status != 200 || hits.Load() != 1 {
		t.Errorf("allowed: status %d, err %v, %d requests", status, err, hits.Load())
	}
	msg.URL = rcv.URL + "/moved"
	if status, err := NewWebhook(true).Send(t.Context(), msg); err == nil || status != http.StatusFound || hits.Load() != 2 {
		t.Errorf("redirect: status %d, err %v, %d requests; want a failed attempt, not followed", status, err, hits.Load())
	}
}
