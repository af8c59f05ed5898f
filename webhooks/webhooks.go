// Package webhooks holds webhooks to organisations beside the payout
// domain (docs/webhooks.md): the endpoints an organisation registers, their
// signing secrets and the URL policy that keeps them off private addresses,
// and the delivery of the events the domain's use cases write in their own
// money transactions (disburse.WebhookEvent). It imports the domain and is
// never imported by it; its store is a transaction port of its own, which
// whoever holds the concrete store hands over (sqlstore.Store.Webhooks).
package webhooks

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/txvalue"
)

// Endpoint is a URL an organisation registered to receive events.
type Endpoint struct {
	ID             string
	OrganisationID string
	URL            string
	// Events the endpoint receives; empty means every event.
	Events  []disburse.EventType
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
	// APIVersion is the version its bodies are written in
	// (docs/versioning.md), set at creation.
	APIVersion string
}

// Wants reports whether the endpoint receives events of type t.
func (e Endpoint) Wants(t disburse.EventType) bool {
	return len(e.Events) == 0 || slices.Contains(e.Events, t)
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

// Delivery is one event for one endpoint: the outbox row the webhook
// worker claims, sends and retries. Its ID is the webhook-id header, the
// same on every attempt, so a receiver can drop a repeat.
type Delivery struct {
	ID             string
	EndpointID     string
	OrganisationID string
	EventType      disburse.EventType
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

// Store is the webhooks' persistence port: transactions as the domain's
// Store runs them (retries, one snapshot per Read), over the same database.
type Store interface {
	// Write runs fn in one write transaction and commits when fn returns
	// nil; fn may run again on a serialization failure.
	Write(ctx context.Context, fn func(Tx) error) error
	// Read runs fn in a read-only transaction: one consistent snapshot.
	Read(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a transaction can do with webhooks. Lookups by id return
// disburse.ErrNotFound for a missing row.
type Tx interface {
	// IdempotencyMarks: a claimed request marks its Idempotency-Key and
	// keeps its answer in the transaction of its work (idempotency.Claim.Keep).
	disburse.IdempotencyMarks
	// InsertAudit appends to the audit log, as disburse.Tx does.
	InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error
	// BatchesByID and PaymentsByID read the events' batches and payments
	// for delivery, as disburse.Tx's do; ApprovalsByID their approvals.
	BatchesByID(ctx context.Context, ids []string) (map[string]disburse.Batch, error)
	PaymentsByID(ctx context.Context, ids []string) (map[string]disburse.Payment, error)
	ApprovalsByID(ctx context.Context, ids []string) (map[string]disburse.Approval, error)

	// InsertWebhookEndpoint writes a new endpoint.
	InsertWebhookEndpoint(ctx context.Context, e Endpoint) error
	// WebhookEndpoint reads one endpoint by id.
	WebhookEndpoint(ctx context.Context, id string) (Endpoint, error)
	// UpdateWebhookEndpoint writes every mutable field of the endpoint.
	UpdateWebhookEndpoint(ctx context.Context, e Endpoint) error
	// DeleteWebhookEndpoint deletes the endpoint and its deliveries.
	DeleteWebhookEndpoint(ctx context.Context, id string) error
	// WebhookEndpoints lists endpoints oldest first: the organisation's, or
	// every organisation's when organisationID is empty.
	WebhookEndpoints(ctx context.Context, organisationID string) ([]Endpoint, error)
	// ClaimWebhookDeliveries leases to c.Owner, until c.LeaseUntil, up to
	// c.Limit PENDING deliveries of enabled endpoints that are due at c.Now
	// and not leased by a live owner, none of the endpoints c.Skip lists,
	// and returns them. Rows locked by another transaction are skipped.
	ClaimWebhookDeliveries(ctx context.Context, c DeliveryClaim) ([]Delivery, error)
	// UpdateWebhookDeliveries writes attempts' outcomes in bulk and clears
	// their leases, each only while its LeaseOwner still holds the lease.
	// It returns how many it wrote, as UpdateNotifications does.
	UpdateWebhookDeliveries(ctx context.Context, ds []Delivery) (int, error)
	// ExtendWebhookLeases sets to until the lease of the deliveries ids
	// names that owner holds and whose lease has not ended at now, and
	// returns the ids of those it renewed, as ExtendNotificationLeases does.
	ExtendWebhookLeases(ctx context.Context, owner string, ids []string, now, until time.Time) ([]string, error)
	// ReleaseWebhookDeliveries clears the leases owner holds on the
	// deliveries ids names.
	ReleaseWebhookDeliveries(ctx context.Context, owner string, ids []string) error
	// WebhookDelivery reads one delivery by id.
	WebhookDelivery(ctx context.Context, id string) (Delivery, error)
	// WebhookDeliveries lists an endpoint's deliveries, newest first, at most limit.
	WebhookDeliveries(ctx context.Context, endpointID string, limit int) ([]Delivery, error)
	// RetryWebhookDelivery makes a delivery PENDING and due at now again,
	// keeping its attempts, unless a live lease holds it (ErrLeaseLost).
	RetryWebhookDelivery(ctx context.Context, id string, now time.Time) error
}

// DeliveryClaim is what one claim of Tx.ClaimWebhookDeliveries leases:
// for whom, when, until when, how many, and which endpoints to leave out.
type DeliveryClaim struct {
	Owner      string
	Now        time.Time
	LeaseUntil time.Time
	Limit      int
	Skip       []string // endpoints whose share of the claimer's attempts is in flight
}

// ErrLeaseLost is what RetryWebhookDelivery returns for a delivery leased
// to a live process: an attempt in flight holds it.
var ErrLeaseLost = errors.New("lease lost")

// Service holds the webhook use cases: every rule about endpoints and
// their deliveries, above Store. The HTTP API and the webhook worker call it.
type Service struct {
	Store Store
	// Clock is the domain's clock (disburse.Service.Clock): tests move it.
	Clock func() time.Time
	Log   *slog.Logger
	// Config says which URLs organisations may register (endpoints.go).
	Config Config
	// Meter counts delivery attempts and disabled endpoints for the
	// operator's metrics (meter.go); nil counts nothing.
	Meter Meter
}

// New returns the webhooks' Service over store, on the clock and the log
// of the domain's Service.
func New(store Store, core *disburse.Service) *Service {
	return &Service{Store: store, Clock: core.Clock, Log: core.Log}
}

// now is the time of one use case: read once, so a transaction sees one
// clock; truncated to microseconds, the precision the stores keep.
func (s *Service) now() time.Time {
	return s.Clock().UTC().Truncate(time.Microsecond)
}

// read runs fn in one read transaction of s and returns its value.
func read[T any](ctx context.Context, s Store, fn func(Tx) (T, error)) (T, error) {
	return txvalue.Read(ctx, s.Read, fn)
}

// Claimed returns a copy of s whose every write transaction runs under c,
// an Idempotency-Key claimed with idempotency.Keys.Begin: the key is
// marked done, and its answer made from the endpoint or delivery written
// (idempotency.Written.Feature), in the same transaction as the work.
func (s *Service) Claimed(c *idempotency.Claim) *Service {
	cp := *s
	cp.Store = claimStore{Store: s.Store, c: c}
	return &cp
}

// claimStore is a Store whose writes carry a claim.
type claimStore struct {
	Store
	c *idempotency.Claim
}

func (cs claimStore) Write(ctx context.Context, fn func(Tx) error) error {
	return cs.Store.Write(ctx, func(tx Tx) error {
		return cs.c.Keep(ctx, tx, func(w *idempotency.Written) error { return fn(&writtenTx{Tx: tx, written: w}) })
	})
}

// writtenTx is a Tx that notes the endpoint a claimed request inserts or
// updates, or the delivery it makes due again as read back after.
type writtenTx struct {
	Tx
	written *idempotency.Written
	retried string // the delivery RetryWebhookDelivery made due again
}

func (w *writtenTx) InsertWebhookEndpoint(ctx context.Context, e Endpoint) error {
	err := w.Tx.InsertWebhookEndpoint(ctx, e)
	if err == nil {
		w.written.Feature = e
	}
	return err
}

func (w *writtenTx) UpdateWebhookEndpoint(ctx context.Context, e Endpoint) error {
	err := w.Tx.UpdateWebhookEndpoint(ctx, e)
	if err == nil {
		w.written.Feature = e
	}
	return err
}

func (w *writtenTx) RetryWebhookDelivery(ctx context.Context, id string, now time.Time) error {
	err := w.Tx.RetryWebhookDelivery(ctx, id, now)
	if err == nil {
		w.retried = id
	}
	return err
}

// WebhookDelivery notes the delivery read back after it was sent again.
func (w *writtenTx) WebhookDelivery(ctx context.Context, id string) (Delivery, error) {
	d, err := w.Tx.WebhookDelivery(ctx, id)
	if err == nil && id == w.retried {
		w.written.Feature = d
	}
	return d, err
}
