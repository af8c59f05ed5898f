package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// BenchWebhookEvents100k measures what a submit would add if it wrote one
// event per payment rather than one per batch: 100,000 events for an
// organisation with one endpoint that wants them, written by
// InsertWebhookEvents in one transaction (100,000 delivery rows). It
// reports ms per 100,000 (docs/benchmarks.md, "Webhook events").
func BenchWebhookEvents100k(b *testing.B, s disburse.Store) {
	const n = 100_000
	ctx := b.Context()
	svc := disburse.NewService(s)
	org, _, err := svc.CreateOrganisation(ctx, disburse.NewOrganisation{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := svc.CreateWebhook(ctx, org.ID, disburse.WebhookInput{URL: "https://203.0.113.1/bench"}); err != nil {
		b.Fatal(err)
	}
	events := make([]disburse.WebhookEvent, n)
	now := time.Now().UTC().Truncate(time.Microsecond)
	for i := range events {
		events[i] = disburse.WebhookEvent{OrganisationID: org.ID, Type: disburse.EventPaymentSettled, ResourceID: disburse.NewID(), At: now}
	}
	var took time.Duration
	runs := 0
	for b.Loop() {
		start := time.Now()
		err := s.Write(ctx, func(tx disburse.Tx) error {
			written, err := tx.InsertWebhookEvents(ctx, events)
			if err == nil && written != n {
				b.Fatalf("%d deliveries written, want %d", written, n)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		took += time.Since(start)
		runs++
	}
	b.ReportMetric(float64(took.Milliseconds())/float64(runs), "ms/100k-events")
}
