package disburse

import (
	"context"
	"time"
)

// The events of the use cases, written in their transactions
// (docs/webhooks.md, "Which events"). A submit writes one event for the
// batch, however many payments it moves: its payments are paged from the
// API. A leg that settles or is reversed later writes one event for its
// payment, since that is news about one payment.

// insertEvents writes events; none is no statement.
func insertEvents(ctx context.Context, tx Tx, events ...WebhookEvent) error {
	if len(events) == 0 {
		return nil
	}
	_, err := tx.InsertWebhookEvents(ctx, events)
	return err
}

// batchEvent is an event about batch b.
func batchEvent(t EventType, b Batch, at time.Time) WebhookEvent {
	return WebhookEvent{OrganisationID: b.OrganisationID, Type: t, ResourceID: b.ID, At: at}
}

// submitEvents are a submitted batch's: submitted, and closed when
// nothing is left pending.
func submitEvents(b Batch) []WebhookEvent {
	events := []WebhookEvent{batchEvent(EventBatchSubmitted, b, b.SubmittedAt)}
	if b.Status == BatchClosed {
		events = append(events, batchEvent(EventBatchClosed, b, b.ClosedAt))
	}
	return events
}

// legEvents are the events of one payment's change from old to p: one per
// leg that was PENDING and settled or was reversed.
func legEvents(organisationID string, old, p Payment, at time.Time) []WebhookEvent {
	var events []WebhookEvent
	add := func(from, to PaymentStatus, settled, reversed EventType) {
		if from != PaymentPending || from == to {
			return
		}
		t := settled
		if to == PaymentCancelled {
			t = reversed
		}
		events = append(events, WebhookEvent{OrganisationID: organisationID, Type: t, ResourceID: p.ID, At: at})
	}
	add(old.Status, p.Status, EventPaymentSettled, EventPaymentReversed)
	if p.HasReferral() {
		add(old.ReferralStatus, p.ReferralStatus, EventReferralSettled, EventReferralReversed)
	}
	return events
}
