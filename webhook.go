package disburse

import "time"

// EventType names what happened to a batch or a payment, as an
// organisation's webhook endpoints receive it (docs/webhooks.md).
type EventType string

// The events. A batch's events carry the batch, a payment's the payment.
const (
	// EventBatchSubmitted: the batch was submitted and is OPEN or CLOSED;
	// its payments, each with its status, are paged from
	// GET /batches/{id}/payments rather than sent one event each.
	EventBatchSubmitted EventType = "batch.submitted"
	// EventBatchClosed: nothing is pending any more, at submit or later.
	EventBatchClosed EventType = "batch.closed"
	// EventBatchCancelled: the batch was cancelled; its legs that were
	// DRAFT or PENDING are CANCELLED.
	EventBatchCancelled EventType = "batch.cancelled"
	// EventPaymentSettled: a PENDING payment leg settled (its payee registered).
	EventPaymentSettled EventType = "payment.settled"
	// EventPaymentReversed: a PENDING payment leg was reversed at the end of
	// the reversal period.
	EventPaymentReversed EventType = "payment.reversed"
	// EventReferralSettled: a PENDING referral leg settled.
	EventReferralSettled EventType = "payment.referral.settled"
	// EventReferralReversed: a PENDING referral leg was reversed.
	EventReferralReversed EventType = "payment.referral.reversed"
)

// EventTypes lists every event an endpoint may subscribe to.
func EventTypes() []EventType {
	return []EventType{EventBatchSubmitted, EventBatchClosed, EventBatchCancelled,
		EventPaymentSettled, EventPaymentReversed, EventReferralSettled, EventReferralReversed}
}

// IsBatchEvent reports whether the event's resource is a batch (else a payment).
func (e EventType) IsBatchEvent() bool {
	return e == EventBatchSubmitted || e == EventBatchClosed || e == EventBatchCancelled
}

// WebhookEvent is one event as a use case writes it, in the transaction of
// the change that caused it (Tx.InsertWebhookEvents); the store fans it out
// into one delivery per enabled endpoint of the organisation that wants it.
// The endpoints and their deliveries are the webhooks package's.
type WebhookEvent struct {
	OrganisationID string
	Type           EventType
	ResourceID     string // the batch's or the payment's id
	At             time.Time
}
