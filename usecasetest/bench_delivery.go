package usecasetest

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/notify"
)

// BenchNotificationDelivery measures the notification delivery rate of one
// process: SMS in the outbox sent by one worker with the default policy to
// a gateway on 127.0.0.1, claim by claim as the delivery loop does: 5,000
// to a gateway that answers 200 at once, and 1,000 to one that takes 5 ms. It reports notifications per second
// (docs/benchmarks.md, "Delivery").
func BenchNotificationDelivery(b *testing.B, s NotificationStore) {
	b.Run("instant", func(b *testing.B) { benchNotificationDelivery(b, s, 5_000, 0) })
	b.Run("gateway-5ms", func(b *testing.B) { benchNotificationDelivery(b, s, 1_000, 5*time.Millisecond) })
}

func benchNotificationDelivery(b *testing.B, s NotificationStore, n int, latency time.Duration) {
	ctx := b.Context()
	notes := notifications.New(s.Notifications(), disburse.NewService(s))
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		time.Sleep(latency)
	}))
	defer gateway.Close()
	provider := notify.NewHTTP(gateway.URL, notifications.DefaultPolicy.Concurrency)
	var took time.Duration
	sent := 0
	for b.Loop() {
		now := time.Now().UTC().Truncate(time.Microsecond)
		ns := make([]disburse.Notification, n)
		for i := range ns {
			ns[i] = disburse.Notification{ID: disburse.NewID(), Channel: disburse.ChannelSMS, Recipient: fmt.Sprintf("2547%08d", i),
				Message: "Bench Ltd sent you KES 100.00. Register to receive it.", Status: disburse.NotificationPending, CreatedAt: now}
		}
		if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertNotifications(ctx, ns) }); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sent += drain(b, func() (int, error) {
			return notes.Deliver(ctx, provider, "bench", notifications.DefaultPolicy)
		})
		took += time.Since(start)
	}
	b.ReportMetric(float64(sent)/took.Seconds(), "notifications/s")
}

// drain runs deliver, a worker's pass, until it finds nothing due, and
// returns how many it attempted.
func drain(b *testing.B, deliver func() (int, error)) int {
	b.Helper()
	total := 0
	for {
		k, err := deliver()
		if err != nil {
			b.Fatal(err)
		}
		if k == 0 {
			return total
		}
		total += k
	}
}
