package storetest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notify"
	"github.com/google/go-cmp/cmp"
)

// RunDelivery checks the notification outbox end to end on a store: what a
// submit and a registration write, and delivery through the http provider
// against a local gateway that fails, with retries, backoff, FAILED after the
// last attempt, and leases that another process takes over once expired.
func RunDelivery(t *testing.T, open func(t *testing.T) disburse.Store) {
	policy := disburse.DeliveryPolicy{MaxAttempts: 3, BaseBackoff: time.Second, MaxBackoff: time.Minute, Lease: 30 * time.Second, BatchSize: 10}

	t.Run("RetriesUntilTheGatewayAccepts", func(t *testing.T) {
		f := newFixture(t, open(t))
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
	})

	t.Run("FailedAfterTheLastAttempt", func(t *testing.T) {
		f := newFixture(t, open(t))
		gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			time.Sleep(200 * time.Millisecond) // longer than the provider waits
		}))
		defer gateway.Close()
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
	})

	t.Run("ALeaseHeldByADeadProcessExpires", func(t *testing.T) {
		f := newFixture(t, open(t))
		f.submitOne(t)
		var claimed []disburse.Notification
		err := f.svc.Store.Write(f.ctx, func(tx disburse.Tx) error {
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
	})

	t.Run("PushForMembersWithTheApp", func(t *testing.T) {
		f := newFixture(t, open(t))
		b := f.batchOf(t, 2)
		if _, _, err := f.svc.Submit(f.ctx, f.org, b); err != nil {
			t.Fatal(err)
		}
		if _, _, err := f.svc.RegisterMember(f.ctx, disburse.Member{Msisdn: racePayee, AppInstalled: true}); err != nil {
			t.Fatal(err)
		}
		list, err := f.svc.Notifications(f.ctx, racePayee)
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
	})
}

func (f *fixture) advance(d time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now = f.now.Add(d)
}

// submitOne submits a batch of one payment to a non-member: one SMS.
func (f *fixture) submitOne(t *testing.T) {
	t.Helper()
	if _, _, err := f.svc.Submit(f.ctx, f.org, f.batchOf(t, 1)); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) deliver(t *testing.T, n disburse.Notifier, owner string, p disburse.DeliveryPolicy, want int) {
	t.Helper()
	got, err := f.svc.DeliverNotifications(context.Background(), n, owner, p)
	if err != nil || got != want {
		t.Fatalf("deliver: attempted %d, %v; want %d", got, err, want)
	}
}

func (f *fixture) only(t *testing.T) disburse.Notification {
	t.Helper()
	list, err := f.svc.Notifications(f.ctx, "")
	if err != nil || len(list) != 1 {
		t.Fatalf("notifications: %d, %v; want 1", len(list), err)
	}
	return list[0]
}
