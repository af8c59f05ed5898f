package bench

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
)

// Delivery of the outboxes, as serve's workers do it, from this one
// process to a gateway on 127.0.0.1 that answers at once: the payee
// notifications' SMS gateway and the organisations' webhook endpoints are
// the same local server, so that what is measured is the service's side of
// delivery (claims, sends, outcomes), not a gateway's latency.

// gateway is the local receiver of notifications and webhooks. It counts
// what it received, so that a rate is only reported when every attempt
// reached it and succeeded.
type gateway struct {
	srv           *httptest.Server
	notifications atomic.Int64
	webhooks      atomic.Int64
}

// The gateway's paths: notifications to one, each webhook endpoint to its
// own under the other.
const (
	smsPath     = "/sms"
	webhookPath = "/hooks/"
)

func newGateway() *gateway {
	g := &gateway{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST "+smsPath, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		g.notifications.Add(1)
	})
	mux.HandleFunc("POST "+webhookPath+"{n}", func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		g.webhooks.Add(1)
		w.WriteHeader(http.StatusNoContent)
	})
	g.srv = httptest.NewServer(mux)
	return g
}

// webhookURL is the URL of the bench's i-th webhook endpoint.
func (g *gateway) webhookURL(i int) string { return fmt.Sprintf("%s%s%d", g.srv.URL, webhookPath, i) }

// deliveryPolicies are serve's defaults with the bench's concurrency and rate.
func (e *env) deliveryPolicies() (notifications.Policy, webhooks.Policy) {
	n, w := notifications.DefaultPolicy, webhooks.DefaultPolicy
	n.Concurrency, w.Concurrency = e.cfg.DeliveryConcurrency, e.cfg.DeliveryConcurrency
	n.Rate, w.Rate = e.cfg.DeliveryRate, e.cfg.DeliveryRate
	return n, w
}

// deliverNotifications sends due notifications, claim after claim as the
// delivery worker does, until at least want were attempted or nothing is
// due (want 0: until nothing is due). It returns how many were attempted
// and the wall time, and fails unless the gateway received each of them.
func deliverNotifications(ctx context.Context, e *env, want int) (int, time.Duration, error) {
	p, _ := e.deliveryPolicies()
	provider := notify.NewHTTP(e.gateway.srv.URL+smsPath, p.Concurrency)
	return drain("notifications", &e.gateway.notifications, want, func() (int, error) {
		return e.notes.Deliver(ctx, provider, "bench", p)
	})
}

// deliverWebhooks sends every due webhook delivery as the webhook worker
// does, and fails unless the gateway received each attempt.
func deliverWebhooks(ctx context.Context, e *env) (int, time.Duration, error) {
	_, p := e.deliveryPolicies()
	return drain("webhooks", &e.gateway.webhooks, 0, func() (int, error) {
		return e.hooks.Deliver(ctx, e.webhookSender, httpapi.WebhookRenderer{}, "bench", p)
	})
}

// drain runs pass, one claim of a worker, until at least want were
// attempted (0: until a pass finds nothing due), and checks that the
// gateway's count of what rows received grew by as many.
func drain(what string, received *atomic.Int64, want int, pass func() (int, error)) (int, time.Duration, error) {
	before := received.Load()
	sent := 0
	start := time.Now()
	for want == 0 || sent < want {
		k, err := pass()
		if err != nil {
			return sent, 0, err
		}
		if k == 0 {
			break
		}
		sent += k
	}
	took := time.Since(start)
	if got := received.Load() - before; got != int64(sent) {
		return sent, took, fmt.Errorf("delivery attempted %d %s, the gateway received %d", sent, what, got)
	}
	return sent, took, nil
}

// perSecond is n over d, to the unit.
func perSecond(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(int64(float64(n)/d.Seconds() + 0.5))
}
