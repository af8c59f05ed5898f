package usecasetest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/webhooks"
	"github.com/disburse/disburse/worker"
)

// testWebhookHangingEndpoint: organisation A's endpoint never answers
// (until the test ends) and has a backlog of deliveries; organisation B's
// webhooks still arrive within a second of their event, p99 over 100
// events, with the default policy's slots and a worker that looks every
// 100 ms (docs/webhooks.md, "The worker, on one process or several").
func testWebhookHangingEndpoint(t *testing.T, s WebhookStore) {
	testenv.SkipUnlessLong(t) // A's attempts hang for the whole send timeout
	a := webhookFixture(t, s)
	b := &hookFixture{fixture: newFixture(t, s), hooks: a.hooks}
	stop := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-stop:
		case <-r.Context().Done():
		}
	}))
	defer hanging.Close()
	var mu sync.Mutex
	arrived := map[string]time.Time{} // batch id → when its event arrived
	fast := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		if err := json.NewDecoder(r.Body).Decode(&body); err == nil {
			mu.Lock()
			if _, ok := arrived[body.Data.ID]; !ok {
				arrived[body.Data.ID] = time.Now()
			}
			mu.Unlock()
		}
	}))
	defer fast.Close()
	a.endpoint(t, hanging.URL, "batch.submitted")
	b.endpoint(t, fast.URL, "batch.submitted")
	for range 100 { // A's backlog: more than every slot
		if _, err := a.svc.Submit(a.ctx, a.org, a.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	p := webhooks.DefaultPolicy
	var g worker.Group
	g.Start(t.Context(), worker.Webhooks(a.hooks, notify.NewWebhook(true), httpapi.WebhookRenderer{}, "fair", p, 100*time.Millisecond, a.svc.Log))
	defer func() {
		close(stop) // A's attempts end, then the worker, then the servers
		g.Stop()
	}()

	const n = 100
	created := map[string]time.Time{}
	for range n {
		id := b.batchOf(t, 1)
		created[id] = time.Now()
		if _, err := b.svc.Submit(b.ctx, b.org, id); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond) // events spread over a second or more, as traffic comes
	}
	for deadline := time.Now().Add(2 * p.SendTimeout); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		got := len(arrived)
		mu.Unlock()
		if got == n {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	var latencies []time.Duration
	for id, at := range created {
		if got, ok := arrived[id]; ok {
			latencies = append(latencies, got.Sub(at))
		}
	}
	if len(latencies) < n {
		t.Fatalf("%d of B's %d webhooks arrived while A's endpoint hung", len(latencies), n)
	}
	slices.Sort(latencies)
	p99 := latencies[n*99/100-1]
	t.Logf("B's webhooks while A's endpoint hangs: p50 %v, p99 %v, max %v", latencies[n/2], p99, latencies[n-1])
	if p99 > time.Second {
		t.Errorf("B's webhooks p99 %v while A's endpoint hangs, want within 1 s", p99)
	}
}
