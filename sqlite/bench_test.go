package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/disburse/disburse/storetest"
)

// BenchmarkBatch100k: 100,000 payments added and submitted, in a new file
// (storetest.BenchBatch100k says what it measures).
func BenchmarkBatch100k(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchBatch100k(b, s)
}

// BenchmarkWebhookEvents100k: 100,000 webhook events in one transaction,
// in a new file (storetest.BenchWebhookEvents100k says why).
func BenchmarkWebhookEvents100k(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchWebhookEvents100k(b, s)
}

// BenchmarkWebhookDelivery: the delivery rate of one process, in a new
// file (storetest.BenchWebhookDelivery says what it measures).
func BenchmarkWebhookDelivery(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchWebhookDelivery(b, s)
}

// BenchmarkNotificationDelivery: the notification delivery rate of one
// process, in a new file (storetest.BenchNotificationDelivery says what it
// measures).
func BenchmarkNotificationDelivery(b *testing.B) {
	s, err := Open(b.Context(), filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchNotificationDelivery(b, s)
}
