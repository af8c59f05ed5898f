package usecasetest

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/webhooks"
)

// unrecordedWait is how long the tests here give the worker to send more
// than its concurrency while the first write of outcomes hangs: sends to
// a local function take microseconds, so a worker that goes on sends all
// its claim well within it.
const unrecordedWait = time.Second

// outcomeGate holds the first write of outcomes until opened: what a slow
// database does to a process that is then killed before the write lands;
// or, with fail set, fails it, as a database that goes away does.
type outcomeGate struct {
	once    sync.Once
	fail    error
	held    chan struct{} // closed once a write waits at the gate
	release chan struct{}
}

func newOutcomeGate() *outcomeGate {
	return &outcomeGate{held: make(chan struct{}), release: make(chan struct{})}
}

// failingGate fails the first write of outcomes.
func failingGate() *outcomeGate {
	g := newOutcomeGate()
	g.fail = errors.New("the database went away")
	close(g.release)
	return g
}

func (g *outcomeGate) wait() (err error) {
	g.once.Do(func() {
		close(g.held)
		<-g.release
		err = g.fail
	})
	return err
}

// checkUnrecordedSends fails when more sends happened while the first
// write of outcomes was held than a process may have without their
// outcome written, twice its concurrency (fanout.Unwritten): those would
// all be sent again had the process died then (docs/operations.md,
// "Background work and how it is claimed").
func checkUnrecordedSends(t *testing.T, g *outcomeGate, sends *atomic.Int32, concurrency int) {
	t.Helper()
	bound := 2 * concurrency
	select {
	case <-g.held:
	case <-time.After(10 * time.Second):
		t.Fatal("no outcome was written")
	}
	for deadline := time.Now().Add(unrecordedWait); time.Now().Before(deadline) && int(sends.Load()) <= bound; {
		time.Sleep(10 * time.Millisecond)
	}
	if n := int(sends.Load()); n > bound {
		t.Errorf("%d sends while the first outcomes were not yet written, want at most %d", n, bound)
	}
	close(g.release)
}

// gatedOutbox is the notification outbox whose first UpdateNotifications
// waits at the gate.
type gatedOutbox struct {
	notifications.Store
	gate *outcomeGate
}

func (o gatedOutbox) Write(ctx context.Context, fn func(notifications.Tx) error) error {
	return o.Store.Write(ctx, func(tx notifications.Tx) error { return fn(gatedNoteTx{tx, o.gate}) })
}

type gatedNoteTx struct {
	notifications.Tx
	gate *outcomeGate
}

func (tx gatedNoteTx) UpdateNotifications(ctx context.Context, ns []disburse.Notification) (int, error) {
	if err := tx.gate.wait(); err != nil {
		return 0, err
	}
	return tx.Tx.UpdateNotifications(ctx, ns)
}

// testUnrecordedSendsWithinConcurrency: while the outcomes of the first
// sends wait to be written, no more than twice Concurrency sends are made;
// once written, every notification is sent once.
func testUnrecordedSendsWithinConcurrency(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 10)); err != nil {
		t.Fatal(err)
	}
	gate := newOutcomeGate()
	notes := notifications.New(gatedOutbox{store.Notifications(), gate}, f.svc)
	var sends atomic.Int32
	gateway := sender(func(context.Context, disburse.Notification) error { sends.Add(1); return nil })
	p := policy
	p.Concurrency = 3
	done := make(chan error, 1)
	go func() { _, err := notes.Deliver(f.ctx, gateway, "a", p); done <- err }()
	checkUnrecordedSends(t, gate, &sends, p.Concurrency)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 10 || sends.Load() != 10 {
		t.Fatalf("%d notifications, %d sends, %v; want 10 of each", len(list), sends.Load(), err)
	}
	for _, n := range list {
		if n.Status != disburse.NotificationSent || n.Attempts != 1 {
			t.Errorf("notification %+v, want SENT at its one attempt", n)
		}
	}
}

// gatedHooks is the webhooks' port whose first UpdateWebhookDeliveries
// waits at the gate.
type gatedHooks struct {
	webhooks.Store
	gate *outcomeGate
}

func (h gatedHooks) Write(ctx context.Context, fn func(webhooks.Tx) error) error {
	return h.Store.Write(ctx, func(tx webhooks.Tx) error { return fn(gatedHookTx{tx, h.gate}) })
}

type gatedHookTx struct {
	webhooks.Tx
	gate *outcomeGate
}

func (tx gatedHookTx) UpdateWebhookDeliveries(ctx context.Context, ds []webhooks.Delivery) (int, error) {
	if err := tx.gate.wait(); err != nil {
		return 0, err
	}
	return tx.Tx.UpdateWebhookDeliveries(ctx, ds)
}

// testWebhookUnrecordedAttemptsWithinConcurrency is
// testUnrecordedSendsWithinConcurrency for webhook deliveries.
func testWebhookUnrecordedAttemptsWithinConcurrency(t *testing.T, s WebhookStore) {
	f := webhookFixture(t, s)
	e := f.endpoint(t, "http://127.0.0.1:9/hook", "batch.submitted")
	const n = 12 // more than twice the policy's concurrency
	for range n {
		if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
			t.Fatal(err)
		}
	}
	gate := newOutcomeGate()
	f.hooks.Store = gatedHooks{s.Webhooks(), gate}
	var sends atomic.Int32
	endpoint := senderFunc(func(context.Context, webhooks.Message) (int, error) { sends.Add(1); return 200, nil })
	done := make(chan error, 1)
	go func() {
		_, err := f.hooks.Deliver(f.ctx, endpoint, httpapi.WebhookRenderer{}, "a", webhookPolicy)
		done <- err
	}()
	checkUnrecordedSends(t, gate, &sends, webhookPolicy.Concurrency)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	ds := f.deliveries(t, e)
	if len(ds) != n || sends.Load() != n {
		t.Fatalf("%d deliveries, %d sends; want %d of each", len(ds), sends.Load(), n)
	}
	for _, d := range ds {
		if d.Status != webhooks.DeliveryDelivered || d.Attempts != 1 {
			t.Errorf("delivery %+v, want DELIVERED at its one attempt", d)
		}
	}
}

// testSendsAfterAFailedWrite: when the first write of outcomes fails, the
// claim stops (the slots its unwritten outcomes hold are not waited for),
// writes them in its last write, and hands the rest back; the next pass
// sends the rest, and nothing is sent twice.
func testSendsAfterAFailedWrite(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 10)); err != nil {
		t.Fatal(err)
	}
	notes := notifications.New(gatedOutbox{store.Notifications(), failingGate()}, f.svc)
	var sends atomic.Int32
	gateway := sender(func(context.Context, disburse.Notification) error { sends.Add(1); return nil })
	p := policy
	p.Concurrency = 1
	done := make(chan error, 1)
	go func() { _, err := notes.Deliver(f.ctx, gateway, "a", p); done <- err }()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a pass whose write failed: no error")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the pass still waits after its write failed")
	}
	if _, err := notes.Deliver(f.ctx, gateway, "a", p); err != nil {
		t.Fatal(err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 10 || sends.Load() != 10 {
		t.Fatalf("%d notifications, %d sends, %v; want 10 of each", len(list), sends.Load(), err)
	}
	for _, n := range list {
		if n.Status != disburse.NotificationSent || n.Attempts != 1 || n.LeaseOwner != "" {
			t.Errorf("notification %+v, want SENT at its one attempt, unleased", n)
		}
	}
}
