package usecasetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/webhooks"
)

// senderFunc is a webhooks.Sender made of a function.
type senderFunc func(ctx context.Context, m webhooks.Message) (int, error)

func (s senderFunc) Send(ctx context.Context, m webhooks.Message) (int, error) { return s(ctx, m) }

// testWebhookAttemptLongerThanTheLease: under a short lease (leaseUnderTest), "a"'s
// attempts are held for three leases while "b" delivers beside it, round
// after round; a's heartbeat keeps renewing the lease, so each delivery is
// sent once, by a (docs/webhooks.md, "The worker, on one process or
// several"). On the wall clock: the heartbeat ticks on it.
func testWebhookAttemptLongerThanTheLease(t *testing.T, s WebhookStore) {
	testenv.SkipUnlessLong(t) // three leases of waiting on the wall clock
	f := webhookFixture(t, s)
	e := f.endpoint(t, "http://127.0.0.1:9/hook", "batch.submitted")
	for range 3 {
		if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	f.hooks.Clock = time.Now
	p := webhookPolicy
	p.Lease = leaseUnderTest
	var mu sync.Mutex
	sends := map[string][]string{} // delivery id -> the owners that sent it
	record := func(owner string, m webhooks.Message) {
		mu.Lock()
		defer mu.Unlock()
		sends[m.ID] = append(sends[m.ID], owner)
	}
	started, release := make(chan struct{}, 3), make(chan struct{})
	a := senderFunc(func(ctx context.Context, m webhooks.Message) (int, error) {
		record("a", m)
		started <- struct{}{}
		<-release
		return 200, nil
	})
	b := senderFunc(func(ctx context.Context, m webhooks.Message) (int, error) {
		record("b", m)
		return 200, nil
	})
	done := make(chan error, 1)
	go func() { _, err := f.hooks.Deliver(f.ctx, a, httpapi.WebhookRenderer{}, "a", p); done <- err }()
	for range 3 {
		<-started
	}
	for from := time.Now(); time.Since(from) < 3*p.Lease; time.Sleep(p.Lease / 3) {
		if _, err := f.hooks.Deliver(f.ctx, b, httpapi.WebhookRenderer{}, "b", p); err != nil {
			t.Fatalf("deliver b: %v", err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("deliver a: %v", err)
	}
	ds := f.deliveries(t, e)
	if len(ds) != 3 {
		t.Fatalf("%d deliveries, want 3", len(ds))
	}
	mu.Lock()
	defer mu.Unlock()
	for _, d := range ds {
		if got := sends[d.ID]; len(got) != 1 || got[0] != "a" {
			t.Errorf("delivery %s sent by %v, want once, by a", d.ID, got)
		}
		if d.Status != webhooks.DeliveryDelivered || d.Attempts != 1 || d.LeaseOwner != "" {
			t.Errorf("delivery %+v, want DELIVERED at its one attempt, unleased", d)
		}
	}
}
