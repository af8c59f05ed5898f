package postgres_test

import (
	"testing"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/storetest"
)

// BenchmarkBatch100k: 100,000 payments added and submitted, in a new
// database (storetest.BenchBatch100k says what it measures).
func BenchmarkBatch100k(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchBatch100k(b, s)
}

// BenchmarkWebhookEvents100k: 100,000 webhook events in one transaction,
// in a new database (storetest.BenchWebhookEvents100k says why).
func BenchmarkWebhookEvents100k(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchWebhookEvents100k(b, s)
}

// BenchmarkWebhookDelivery: the delivery rate of one process, in a new
// database (storetest.BenchWebhookDelivery says what it measures).
func BenchmarkWebhookDelivery(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchWebhookDelivery(b, s)
}

// BenchmarkNotificationDelivery: the notification delivery rate of one
// process, in a new database (storetest.BenchNotificationDelivery says
// what it measures).
func BenchmarkNotificationDelivery(b *testing.B) {
	s, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.BenchNotificationDelivery(b, s)
}
