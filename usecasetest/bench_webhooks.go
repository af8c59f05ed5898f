package usecasetest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/webhooks"
)

// BenchWebhookEvents100k measures what a submit would add if it wrote one
// event per payment rather than one per batch: 100,000 events for an
// organisation with one endpoint that wants them, written by
// InsertWebhookEvents in one transaction (100,000 delivery rows). It
// reports ms per 100,000 (docs/benchmarks.md, "Webhook events").
func BenchWebhookEvents100k(b *testing.B, s WebhookStore) {
	const n = 100_000
	ctx := b.Context()
	svc := disburse.NewService(s)
	hooks := webhooks.New(s.Webhooks(), svc)
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := hooks.Create(ctx, org.ID, webhooks.Input{URL: "https://93.184.215.1/bench"}); err != nil {
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

// BenchWebhookDelivery measures the delivery rate of one process: 2,000
// deliveries (one endpoint, a receiver on 127.0.0.1 that answers 204 at
// once) sent by one worker with the default policy, claim by claim as the
// webhook loop does. It reports deliveries per second.
func BenchWebhookDelivery(b *testing.B, s WebhookStore) {
	const n = 2_000
	ctx := b.Context()
	svc := disburse.NewService(s)
	hooks := webhooks.New(s.Webhooks(), svc)
	hooks.Config.AllowPrivate = true
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer rcv.Close()
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Bench"})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := hooks.Create(ctx, org.ID, webhooks.Input{URL: rcv.URL}); err != nil {
		b.Fatal(err)
	}
	// The events name a real batch, which each delivery reads and renders.
	batch, err := svc.CreateBatch(ctx, org.ID, disburse.BatchInput{Name: "bench", AccountID: accounts[0].ID})
	if err != nil {
		b.Fatal(err)
	}
	sender := notify.NewWebhook(true)
	var took time.Duration
	sent := 0
	for b.Loop() {
		now := time.Now().UTC().Truncate(time.Microsecond)
		events := make([]disburse.WebhookEvent, n)
		for i := range events {
			events[i] = disburse.WebhookEvent{OrganisationID: org.ID, Type: disburse.EventBatchSubmitted, ResourceID: batch.ID, At: now}
		}
		if err := s.Write(ctx, func(tx disburse.Tx) error { _, err := tx.InsertWebhookEvents(ctx, events); return err }); err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		sent += drain(b, func() (int, error) {
			return hooks.Deliver(ctx, sender, httpapi.WebhookRenderer{}, "bench", webhooks.DefaultPolicy)
		})
		took += time.Since(start)
	}
	b.ReportMetric(float64(sent)/took.Seconds(), "deliveries/s")
}
