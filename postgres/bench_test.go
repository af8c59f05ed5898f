package postgres_test

import (
	"testing"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/usecasetest"
)

// BenchmarkBatch100k: 100,000 payments added and submitted, in a new
// database (usecasetest.BenchBatch100k says what it measures).
func BenchmarkBatch100k(b *testing.B) {
	usecasetest.BenchBatch100k(b, benchStore(b))
}

// BenchmarkWebhookEvents100k: 100,000 webhook events in one transaction,
// in a new database (usecasetest.BenchWebhookEvents100k says why).
func BenchmarkWebhookEvents100k(b *testing.B) {
	usecasetest.BenchWebhookEvents100k(b, benchStore(b))
}

// BenchmarkWebhookDelivery: the delivery rate of one process, in a new
// database (usecasetest.BenchWebhookDelivery says what it measures).
func BenchmarkWebhookDelivery(b *testing.B) {
	usecasetest.BenchWebhookDelivery(b, benchStore(b))
}

// BenchmarkNotificationDelivery: the notification delivery rate of one
// process, in a new database (usecasetest.BenchNotificationDelivery says
// what it measures).
func BenchmarkNotificationDelivery(b *testing.B) {
	usecasetest.BenchNotificationDelivery(b, benchStore(b))
}

// BenchmarkPaymentPages: a batch of 100,000 read in pages, in a new
// database (usecasetest.BenchPaymentPages).
func BenchmarkPaymentPages(b *testing.B) {
	usecasetest.BenchPaymentPages(b, benchStore(b))
}

// BenchmarkPreview: a submit's confirmation of a batch of 100,000, in a
// new database (usecasetest.BenchPreview).
func BenchmarkPreview(b *testing.B) {
	usecasetest.BenchPreview(b, benchStore(b))
}

// benchStore opens a store on a new database, closed when the benchmark ends.
func benchStore(b *testing.B) *sqlstore.Store {
	s, err := postgres.Open(b.Context(), pgtest.URL(b))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}
