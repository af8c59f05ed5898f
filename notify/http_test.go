package notify

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// TestHTTPHonoursTheDeadline: a send gives up when its context ends (the
// delivery worker's SendTimeout) or at HTTP.Timeout, whichever is first, so
// no send outlives the lease it was started under.
func TestHTTPHonoursTheDeadline(t *testing.T) {
	unblock := make(chan struct{})
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-unblock:
		}
	}))
	defer gateway.Close()
	defer close(unblock)
	n := disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: "254712345678", Message: "hi"}

	for _, tc := range []struct {
		name     string
		h        HTTP
		deadline time.Duration
	}{
		{"context deadline", HTTP{URL: gateway.URL}, 50 * time.Millisecond},
		{"context deadline before Timeout", HTTP{URL: gateway.URL, Timeout: time.Minute}, 50 * time.Millisecond},
		{"Timeout before context deadline", HTTP{URL: gateway.URL, Timeout: 50 * time.Millisecond}, time.Minute},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), tc.deadline)
			defer cancel()
			start := time.Now()
			if err := tc.h.Send(ctx, n); err == nil {
				t.Fatal("a send the gateway never answered succeeded")
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("send gave up after %v, want about 50ms", d)
			}
		})
	}
}
