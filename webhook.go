package disburse

import (
	"context"
	"slices"
	"time"
)

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

// WebhookEndpoint is a URL an organisation registered to receive events.
type WebhookEndpoint struct {
	ID             string
	OrganisationID string
	URL            string
	// Events the endpoint receives; empty means every event.
	Events  []EventType
	Enabled bool
	// DisabledReason says why the service disabled it (empty when the
	// organisation did, or when it is enabled).
	DisabledReason string
	// Secret signs deliveries ("whsec_" and base64). It is kept as issued:
	// a signing key must be read back to sign (docs/decisions.md).
	Secret string
	// PreviousSecret signs too, beside Secret, until PreviousSecretUntil:
	// a receiver has that long to switch after a rotation.
	PreviousSecret      string
	PreviousSecretUntil time.Time
	// FailingSince is the first failed attempt since the last success;
	// zero while the endpoint answers.
	FailingSince time.Time
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// Wants reports whether the endpoint receives events of type t.
func (e WebhookEndpoint) Wants(t EventType) bool {
	return len(e.Events) == 0 || slices.Contains(e.Events, t)
}

// WebhookEvent is one event as a use case writes it, in the transaction of
// the change that caused it; the store fans it out into one delivery per
// enabled endpoint of the organisation that wants it.
type WebhookEvent struct {
	OrganisationID string
	Type           EventType
	ResourceID     string // the batch's or the payment's id
	At             time.Time
}

// DeliveryStatus is where a webhook delivery stands.
type DeliveryStatus string

// The delivery states: PENDING until the endpoint answers 2xx (DELIVERED) or
// the retry window closes (FAILED).
const (
	DeliveryPending   DeliveryStatus = "PENDING"
	DeliveryDelivered DeliveryStatus = "DELIVERED"
	DeliveryFailed    DeliveryStatus = "FAILED"
)

// WebhookDelivery is one event for one endpoint: the outbox row the webhook
// worker claims, sends and retries. Its ID is the webhook-id header, the
// same on every attempt, so a receiver can drop a repeat.
type WebhookDelivery struct {
	ID             string
	EndpointID     string
	OrganisationID string
	EventType      EventType
	ResourceID     string
	EventAt        time.Time
	Status         DeliveryStatus
	Attempts       int
	NextAttemptAt  time.Time
	LeaseOwner     string
	LeaseUntil     time.Time
	LastStatusCode int // the endpoint's last HTTP status; 0 when it gave none
	LastError      string
	CreatedAt      time.Time
	DeliveredAt    time.Time
}

// WebhookTx is what a transaction can do with webhooks; Tx embeds it.
type WebhookTx interface {
	InsertWebhookEndpoint(ctx context.Context, e WebhookEndpoint) error
	WebhookEndpoint(ctx context.Context, id string) (WebhookEndpoint, error)
	// UpdateWebhookEndpoint writes every mutable field of the endpoint.
	UpdateWebhookEndpoint(ctx context.Context, e WebhookEndpoint) error
	// DeleteWebhookEndpoint deletes the endpoint and its deliveries.
	DeleteWebhookEndpoint(ctx context.Context, id string) error
	// WebhookEndpoints lists endpoints oldest first: the organisation's, or
	// every organisation's when organisationID is empty.
	WebhookEndpoints(ctx context.Context, organisationID string) ([]WebhookEndpoint, error)
	// InsertWebhookEvents writes one PENDING delivery, due at the event's
	// time, per event and enabled endpoint of its organisation that wants
	// it, in bulk. It returns how many deliveries it wrote.
	InsertWebhookEvents(ctx context.Context, events []WebhookEvent) (int, error)
	// ClaimWebhookDeliveries leases up to limit PENDING deliveries of
	// enabled endpoints that are due at now and not leased by a live owner,
	// and returns them. Rows locked by another transaction are skipped.
	ClaimWebhookDeliveries(ctx context.Context, owner string, now, leaseUntil time.Time, limit int) ([]WebhookDelivery, error)
	// UpdateWebhookDeliveries writes attempts' outcomes in bulk and clears
	// their leases, each only while its LeaseOwner still holds the lease.
	// It returns how many it wrote, as UpdateNotifications does.
	UpdateWebhookDeliveries(ctx context.Context, ds []WebhookDelivery) (int, error)
	// ReleaseWebhookDeliveries clears the leases owner holds on the
	// deliveries ids names.
	ReleaseWebhookDeliveries(ctx context.Context, owner string, ids []string) error
	WebhookDelivery(ctx context.Context, id string) (WebhookDelivery, error)
	// WebhookDeliveries lists an endpoint's deliveries, newest first, at most limit.
	WebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]WebhookDelivery, error)
	// RetryWebhookDelivery makes a delivery PENDING and due at now again,
	// keeping its attempts, unless a live lease holds it (ErrLeaseLost).
	RetryWebhookDelivery(ctx context.Context, id string, now time.Time) error
}
