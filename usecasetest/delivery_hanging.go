package usecasetest

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
)

// testASendThatHangsHoldsOnlyItsSlot: the gateway holds the first send
// until the test ends; notifications that fall due meanwhile are claimed
// and sent while it hangs, not after it (docs/operations.md, "Background
// work and how it is claimed").
func testASendThatHangsHoldsOnlyItsSlot(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	f.submitOne(t)
	hang, started := make(chan struct{}), make(chan struct{})
	var calls, later atomic.Int32
	laterSent := make(chan struct{})
	gateway := sender(func(ctx context.Context, n disburse.Notification) error {
		switch calls.Add(1) {
		case 1:
			close(started)
			<-hang
		default:
			if later.Add(1) == 3 {
				close(laterSent)
			}
		}
		return nil
	})
	p := policy
	p.Concurrency = 4
	done := make(chan error, 1)
	go func() { _, err := f.notes.Deliver(f.ctx, gateway, "a", p); done <- err }()
	<-started
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 3)); err != nil {
		t.Fatal(err)
	}
	select {
	case <-laterSent:
	case <-time.After(10 * time.Second):
		t.Errorf("%d of the 3 notifications that fell due were sent while the first send hung, want 3", later.Load())
	}
	close(hang)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 4 {
		t.Fatalf("notifications: %d, %v; want 4", len(list), err)
	}
	for _, n := range list {
		if n.Status != disburse.NotificationSent || n.Attempts != 1 || n.LeaseOwner != "" {
			t.Errorf("notification %+v, want SENT after 1 attempt, unleased", n)
		}
	}
}
