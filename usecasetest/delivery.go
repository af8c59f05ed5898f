package usecasetest

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/lists"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/worker"
	"github.com/google/go-cmp/cmp"
)

// RunDelivery checks the notification outbox end to end on a store: what a
// submit and a registration write, and delivery through the http provider
// against a local gateway that fails, with retries, backoff, FAILED after the
// last attempt, leases that another process takes over once expired, no
// message sent twice by two processes when the gateway is slow or when two
// replicas each send many at once, outcomes written while a claim is still
// sending, and a shutdown that finishes the send in flight and hands the
// rest back; and each attempt counted by its outcome (notifications.Meter).
// Each test runs in parallel on a store of its own.
func RunDelivery[S NotificationStore](t *testing.T, open func(t *testing.T) S) {
	tests := []struct {
		name string
		run  func(*testing.T, NotificationStore)
	}{
		{"RetriesUntilTheGatewayAccepts", testRetriesUntilTheGatewayAccepts},
		{"FailedAfterTheLastAttempt", testFailedAfterTheLastAttempt},
		{"ALeaseHeldByADeadProcessExpires", testALeaseHeldByADeadProcessExpires},
		{"NoDoubleSendWhenTheGatewayIsSlow", testNoDoubleSendWhenTheGatewayIsSlow},
		{"ALateOutcomeDoesNotOverwrite", testALateOutcomeDoesNotOverwrite},
		{"StopFinishesTheSendInFlight", testStopFinishesTheSendInFlight},
		{"TwoConcurrentReplicasSendEachOnce", testTwoConcurrentReplicasSendEachOnce},
		{"OutcomesRecordedWhileTheClaimSends", testOutcomesRecordedWhileTheClaimSends},
		{"ASendThatHangsHoldsOnlyItsSlot", testASendThatHangsHoldsOnlyItsSlot},
		{"ASendLongerThanTheLeaseIsSentOnce", testASendLongerThanTheLeaseIsSentOnce},
		{"RateSpacesTheSends", testRateSpacesTheSends},
		{"PushForMembersWithTheApp", testPushForMembersWithTheApp},
		{"NotificationAttempts", testNotificationAttempts},
		{"UnrecordedSendsWithinConcurrency", testUnrecordedSendsWithinConcurrency},
		{"SendsAfterAFailedWrite", testSendsAfterAFailedWrite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// NotificationStore is a store that also hands over the notification
// delivery's port, as sqlstore.Store does.
type NotificationStore interface {
	disburse.Store
	Notifications() notifications.Store
}

// noteFixture is a fixture with the notification delivery beside the
// domain's service, on its clock.
type noteFixture struct {
	*fixture
	notes  *notifications.Service
	outbox notifications.Store
}

func newNoteFixture(t *testing.T, s NotificationStore) *noteFixture {
	t.Helper()
	f := newFixture(t, s)
	return &noteFixture{fixture: f, notes: notifications.New(s.Notifications(), f.svc), outbox: s.Notifications()}
}

// policy is the delivery policy of the tests here, unless one says otherwise.
var policy = notifications.Policy{MaxAttempts: 3, BaseBackoff: time.Second, MaxBackoff: time.Minute,
	Lease: 30 * time.Second, SendTimeout: 10 * time.Second, BatchSize: 10}

// testRetriesUntilTheGatewayAccepts: a send the gateway refuses is retried
// after a backoff that doubles, until it is accepted.
func testRetriesUntilTheGatewayAccepts(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	var calls atomic.Int32
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= 2 {
			http.Error(w, "busy", http.StatusServiceUnavailable)
		}
	}))
	defer gateway.Close()
	provider := notify.HTTP{URL: gateway.URL}
	f.submitOne(t)

	f.deliver(t, provider, "a", policy, 1) // fails: 503
	f.deliver(t, provider, "a", policy, 0) // not due before the backoff
	f.advance(time.Second)
	f.deliver(t, provider, "a", policy, 1) // fails again
	f.advance(time.Second)
	f.deliver(t, provider, "a", policy, 0) // backoff doubled to 2s
	f.advance(time.Second)
	f.deliver(t, provider, "a", policy, 1) // accepted
	n := f.only(t)
	if n.Status != disburse.NotificationSent || n.Attempts != 3 || n.Channel != disburse.ChannelSMS {
		t.Errorf("notification %+v, want SENT SMS after 3 attempts", n)
	}
	if !strings.Contains(n.Message, "Race Ltd") || !strings.Contains(n.Message, "10.00") {
		t.Errorf("SMS %q must name the organisation and the amount", n.Message)
	}
}

// testFailedAfterTheLastAttempt: a send that times out on every attempt
// ends FAILED after the last one.
func testFailedAfterTheLastAttempt(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	hung := make(chan struct{})
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select { // no answer before the provider gives up
		case <-r.Context().Done():
		case <-hung:
		}
	}))
	defer gateway.Close()
	defer close(hung)
	provider := notify.HTTP{URL: gateway.URL, Timeout: 20 * time.Millisecond}
	f.submitOne(t)
	for range policy.MaxAttempts {
		f.deliver(t, provider, "a", policy, 1)
		f.advance(time.Hour)
	}
	f.deliver(t, provider, "a", policy, 0)
	if n := f.only(t); n.Status != disburse.NotificationFailed || n.Attempts != policy.MaxAttempts {
		t.Errorf("notification %+v, want FAILED after %d attempts", n, policy.MaxAttempts)
	}
	f.checkLedger(t) // a provider failure never touches money
}

// testALeaseHeldByADeadProcessExpires: a claim whose owner died is taken
// over once its lease has run out, not before.
func testALeaseHeldByADeadProcessExpires(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	f.submitOne(t)
	var claimed []disburse.Notification
	err := f.outbox.Write(f.ctx, func(tx notifications.Tx) error {
		var err error
		claimed, err = tx.ClaimNotifications(f.ctx, "dead", f.now, f.now.Add(policy.Lease), 10)
		return err
	})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	provider := notify.Log{Logger: f.svc.Log}
	f.deliver(t, provider, "alive", policy, 0) // still leased
	f.advance(policy.Lease + time.Second)
	f.deliver(t, provider, "alive", policy, 1) // taken over
	if n := f.only(t); n.Status != disburse.NotificationSent {
		t.Errorf("notification %+v, want SENT by the live process", n)
	}
}

// testNoDoubleSendWhenTheGatewayIsSlow: each send takes 8 s of the 30 s
// lease. Inside every send of process "a", process "b" looks for work, as
// a second replica would. Before the fix "a" kept sending past its lease
// while "b" took the same messages over; now "a" stops while a send still
// fits and hands the rest back.
func testNoDoubleSendWhenTheGatewayIsSlow(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 10)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sends := map[string][]string{} // notification id -> the owners that sent it
	record := func(owner string, n disburse.Notification) {
		mu.Lock()
		defer mu.Unlock()
		sends[n.ID] = append(sends[n.ID], owner)
	}
	var b notifications.Notifier = sender(func(ctx context.Context, n disburse.Notification) error {
		record("b", n)
		return nil
	})
	a := sender(func(ctx context.Context, n disburse.Notification) error {
		if _, ok := ctx.Deadline(); !ok {
			t.Error("a send without a deadline")
		}
		record("a", n)
		f.advance(8 * time.Second) // a slow gateway
		if _, err := f.notes.Deliver(f.ctx, b, "b", policy); err != nil {
			t.Errorf("deliver b: %v", err)
		}
		return nil
	})
	for range 10 {
		if _, err := f.notes.Deliver(f.ctx, a, "a", policy); err != nil {
			t.Fatalf("deliver a: %v", err)
		}
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 10 {
		t.Fatalf("notifications: %d, %v; want 10", len(list), err)
	}
	for _, n := range list {
		if got := sends[n.ID]; len(got) != 1 {
			t.Errorf("notification %s sent by %v, want exactly once", n.ID, got)
		}
		if n.Status != disburse.NotificationSent || n.Attempts != 1 || n.LeaseOwner != "" {
			t.Errorf("notification %+v, want SENT after 1 attempt, unleased", n)
		}
	}
}

// testALateOutcomeDoesNotOverwrite: "a" claims and stalls past its lease;
// "b" takes over and sends. The outcome "a" then writes must be refused,
// not overwrite SENT.
func testALateOutcomeDoesNotOverwrite(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	f.submitOne(t)
	var claimed []disburse.Notification
	err := f.outbox.Write(f.ctx, func(tx notifications.Tx) error {
		var err error
		claimed, err = tx.ClaimNotifications(f.ctx, "a", f.now, f.now.Add(policy.Lease), 10)
		return err
	})
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	f.advance(policy.Lease + time.Second)
	f.deliver(t, notify.Log{Logger: f.svc.Log}, "b", policy, 1)
	late := claimed[0]
	late.Attempts, late.LastError, late.NextAttemptAt = 1, "timeout", f.now.Add(time.Minute)
	written := -1
	err = f.outbox.Write(f.ctx, func(tx notifications.Tx) error {
		var err error
		written, err = tx.UpdateNotifications(f.ctx, []disburse.Notification{late})
		return err
	})
	if err != nil || written != 0 {
		t.Errorf("late outcome of a lost lease: %d written, %v; want 0 written", written, err)
	}
	if n := f.only(t); n.Status != disburse.NotificationSent || n.Attempts != 1 || n.LastError != "" {
		t.Errorf("notification %+v, want SENT by b, untouched by a", n)
	}
}

// testStopFinishesTheSendInFlight: serve's shutdown, worker.Group.Stop,
// cancels the delivery loop while the gateway holds a send. Stop waits for
// it; the send completes and counts as sent; nothing else is sent; the
// rest is unleased at once.
func testStopFinishesTheSendInFlight(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 3)); err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	var calls atomic.Int32
	gateway := sender(func(ctx context.Context, n disburse.Notification) error {
		if calls.Add(1) == 1 {
			close(started)
			<-release
		}
		return ctx.Err() // a transport aborts a send whose context ended
	})
	// The loop, told when Stop cancels its context and when its run ends.
	loop := worker.Delivery(f.notes, gateway, "stopping", policy, time.Hour, f.svc.Log)
	cancelled, returned := make(chan struct{}), make(chan struct{})
	runOnce := loop.RunOnce
	var first sync.Once
	loop.RunOnce = func(ctx context.Context) (int, error) {
		isFirst := false
		first.Do(func() {
			isFirst = true
			context.AfterFunc(ctx, func() { close(cancelled) })
		})
		if isFirst {
			defer close(returned)
		}
		return runOnce(ctx)
	}
	var g worker.Group
	g.Start(context.Background(), loop)
	<-started
	early := make(chan bool, 1)
	go func() {
		g.Stop()
		select { // has the run in flight returned?
		case <-returned:
			early <- false
		default:
			early <- true
		}
	}()
	<-cancelled // Stop has cancelled the loop mid-send
	close(release)
	if <-early {
		t.Fatal("Stop returned while a send was in flight")
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("%d sends, want 1: no send may start after Stop", n)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 3 {
		t.Fatalf("notifications: %d, %v; want 3", len(list), err)
	}
	sent := 0
	for _, n := range list {
		switch {
		case n.Status == disburse.NotificationSent && n.Attempts == 1:
			sent++
		case n.Status != disburse.NotificationPending || n.Attempts != 0:
			t.Errorf("notification %+v, want PENDING with no attempt", n)
		}
		if n.LeaseOwner != "" || !n.LeaseUntil.IsZero() {
			t.Errorf("notification %s still leased to %q until %v after Stop", n.ID, n.LeaseOwner, n.LeaseUntil)
		}
	}
	if sent != 1 {
		t.Errorf("%d notifications SENT after 1 attempt, want the one in flight", sent)
	}
	f.deliver(t, notify.Log{Logger: f.svc.Log}, "next", policy, 2) // free for another process at once
}

// testTwoConcurrentReplicasSendEachOnce: two replicas on one database,
// each sending up to 8 at once from claims of 25, drain one outbox
// together through a real gateway: every notification is sent once, by one
// of them, and recorded; neither has more than its bound in flight.
func testTwoConcurrentReplicasSendEachOnce(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	const n = 300
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, n)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	received := map[string]int{}    // Idempotency-Key -> requests
	sentBy := map[string][]string{} // notification id -> the replicas that sent it
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		received[r.Header.Get("Idempotency-Key")]++
		mu.Unlock()
		time.Sleep(2 * time.Millisecond)
	}))
	defer gateway.Close()
	p := policy
	p.BatchSize, p.Concurrency = 25, 8
	owners := []string{"replica-a", "replica-b"}
	var inFlight, most [2]atomic.Int32
	errs := f.race(2, func(i int) error {
		replica := notifications.New(store.Notifications(), f.svc)
		provider := notify.NewHTTP(gateway.URL, p.Concurrency)
		counting := sender(func(ctx context.Context, m disburse.Notification) error {
			k := inFlight[i].Add(1)
			defer inFlight[i].Add(-1)
			for m := most[i].Load(); k > m && !most[i].CompareAndSwap(m, k); m = most[i].Load() {
			}
			mu.Lock()
			sentBy[m.ID] = append(sentBy[m.ID], owners[i])
			mu.Unlock()
			return provider.Send(ctx, m)
		})
		_, err := worker.Delivery(replica, counting, owners[i], p, time.Hour, f.svc.Log).RunOnce(f.ctx)
		return err
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != n {
		t.Fatalf("notifications: %d, %v; want %d", len(list), err, n)
	}
	split := map[string]int{}
	for _, m := range list {
		if got := sentBy[m.ID]; len(got) != 1 || received[m.ID] != 1 {
			t.Errorf("notification %s sent by %v, received %d times; want once", m.ID, got, received[m.ID])
		} else {
			split[got[0]]++
		}
		if m.Status != disburse.NotificationSent || m.Attempts != 1 || m.LeaseOwner != "" || m.SentAt.IsZero() {
			t.Errorf("notification %+v, want SENT after 1 attempt, recorded, unleased", m)
		}
	}
	for i := range most {
		if k := most[i].Load(); k > int32(p.Concurrency) {
			t.Errorf("%s had %d sends in flight, more than its %d", owners[i], k, p.Concurrency)
		}
	}
	t.Logf("sent by replica: %v; most in flight: %d and %d", split, most[0].Load(), most[1].Load())
}

// testOutcomesRecordedWhileTheClaimSends: one send of a claim hangs; the
// others' outcomes are written in the meantime, not only when the whole
// claim is done.
func testOutcomesRecordedWhileTheClaimSends(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 5)); err != nil {
		t.Fatal(err)
	}
	release := make(chan struct{})
	var calls atomic.Int32
	gateway := sender(func(ctx context.Context, n disburse.Notification) error {
		if calls.Add(1) == 1 {
			<-release
		}
		return nil
	})
	p := policy
	p.Concurrency = 2
	done := make(chan error, 1)
	go func() { _, err := f.notes.Deliver(f.ctx, gateway, "a", p); done <- err }()
	sent := 0
	for deadline := time.Now().Add(10 * time.Second); sent < 4 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		list, err := lists.Notifications(f.ctx, f.svc, "")
		if err != nil {
			t.Fatal(err)
		}
		sent = 0
		for _, n := range list {
			if n.Status == disburse.NotificationSent {
				sent++
			}
		}
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if sent != 4 {
		t.Errorf("%d of the 4 sends that ended were recorded while the fifth hung", sent)
	}
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		if n.Status != disburse.NotificationSent || n.LeaseOwner != "" {
			t.Errorf("notification %+v, want SENT and unleased", n)
		}
	}
}

// testRateSpacesTheSends: at most 50 sends a second. The six of one
// claim, sent 4 at a time, start no closer than 20 ms apart (a bound from
// below, which a slow machine only widens).
func testRateSpacesTheSends(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 6)); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var starts []time.Time
	gateway := sender(func(ctx context.Context, n disburse.Notification) error {
		mu.Lock()
		defer mu.Unlock()
		starts = append(starts, time.Now())
		return nil
	})
	p := policy
	p.Concurrency, p.Rate = 4, 50
	f.deliver(t, gateway, "a", p, 6)
	if span := starts[len(starts)-1].Sub(starts[0]); span < 90*time.Millisecond {
		t.Errorf("6 sends at 50 a second within %v, want at least 100 ms", span)
	}
}

// testPushForMembersWithTheApp: a non-member is told of a payment by SMS;
// once registered with the app, of its settlement by push.
func testPushForMembersWithTheApp(t *testing.T, store NotificationStore) {
	f := newNoteFixture(t, store)
	b := f.batchOf(t, 2)
	if _, err := f.svc.Submit(f.ctx, f.org, b); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee, AppInstalled: true}); err != nil {
		t.Fatal(err)
	}
	list, err := lists.Notifications(f.ctx, f.svc, racePayee)
	if err != nil {
		t.Fatal(err)
	}
	var channels []disburse.Channel
	for _, n := range list {
		channels = append(channels, n.Channel)
	}
	want := []disburse.Channel{disburse.ChannelSMS, disburse.ChannelSMS, disburse.ChannelPush, disburse.ChannelPush}
	if diff := cmp.Diff(want, channels); diff != "" {
		t.Errorf("channels (-want +got):\n%s", diff)
	}
}

// sender is a notifications.Notifier made of a function.
type sender func(ctx context.Context, n disburse.Notification) error

func (s sender) Send(ctx context.Context, n disburse.Notification) error { return s(ctx, n) }

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// submitOne submits a batch of one payment to a non-member: one SMS.
func (f *fixture) submitOne(t *testing.T) {
	t.Helper()
	if _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
}

func (f *noteFixture) deliver(t *testing.T, n notifications.Notifier, owner string, p notifications.Policy, want int) {
	t.Helper()
	got, err := f.notes.Deliver(context.Background(), n, owner, p)
	if err != nil || got != want {
		t.Fatalf("deliver: attempted %d, %v; want %d", got, err, want)
	}
}

func (f *fixture) only(t *testing.T) disburse.Notification {
	t.Helper()
	list, err := lists.Notifications(f.ctx, f.svc, "")
	if err != nil || len(list) != 1 {
		t.Fatalf("notifications: %d, %v; want 1", len(list), err)
	}
	return list[0]
}
