package usecasetest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/testenv"
	"github.com/disburse/disburse/lists"
)

// leaseUnderTest is the lease of the tests that run the heartbeat on the
// wall clock: short, so that they hold a send past it within seconds, and
// long enough that a renewal (every third of it) held up by a loaded
// machine for a second does not lose it.
const leaseUnderTest = 1500 * time.Millisecond

// testASendLongerThanTheLeaseIsSentOnce: under a short lease (leaseUnderTest), "a"'s
// gateway holds its sends for three leases while "b" delivers
// beside it, round after round; a's heartbeat keeps renewing the lease,
// so b takes none of the rows and each notification is sent once, by a
// (docs/operations.md, "Background work and how it is claimed"). On the
// wall clock: the heartbeat ticks on it.
func testASendLongerThanTheLeaseIsSentOnce(t *testing.T, store NotificationStore) {
	testenv.SkipUnlessLong(t) // three leases of waiting on the wall clock
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 3)); err != nil {
		t.Fatal(err)
	}
	f.svc.Clock, f.notes.Clock = time.Now, time.Now
	p := policy
	p.Lease, p.Concurrency = leaseUnderTest, 3
	var mu sync.Mutex
	sends := map[string][]string{} // notification id -> the owners that sent it
	record := func(owner string, n disburse.Notification) {
		mu.Lock()
		defer mu.Unlock()
		sends[n.ID] = append(sends[n.ID], owner)
	}
	started, release := make(chan struct{}, 3), make(chan struct{})
	a := sender(func(ctx context.Context, n disburse.Notification) error {
		record("a", n)
		started <- struct{}{}
		<-release
		return nil
	})
	b := sender(func(ctx context.Context, n disburse.Notification) error {
		record("b", n)
		return nil
	})
	done := make(chan error, 1)
	go func() { _, err := f.notes.Deliver(f.ctx, a, "a", p); done <- err }()
	for range 3 {
		<-started
	}
	// b comes round every third of a lease until three leases have passed
	// since a's sends started, while they are still in flight.
	for from := time.Now(); time.Since(from) < 3*p.Lease; time.Sleep(p.Lease / 3) {
		if _, err := f.notes.Deliver(f.ctx, b, "b", p); err != nil {
			t.Fatalf("deliver b: %v", err)
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("deliver a: %v", err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 3 {
		t.Fatalf("notifications: %d, %v; want 3", len(list), err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, n := range list {
		if got := sends[n.ID]; len(got) != 1 || got[0] != "a" {
			t.Errorf("notification %s sent by %v, want once, by a", n.ID, got)
		}
		if n.Status != disburse.NotificationSent || n.Attempts != 1 || n.LeaseOwner != "" {
			t.Errorf("notification %+v, want SENT after 1 attempt, unleased", n)
		}
	}
}
