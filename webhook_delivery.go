package disburse

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// WebhookMessage is one signed attempt, as the sender puts it on the wire:
// the Standard Webhooks headers webhook-id (ID), webhook-timestamp
// (Timestamp, unix seconds) and webhook-signature (Signature), and Body.
type WebhookMessage struct {
	ID        string
	URL       string
	Timestamp time.Time
	Signature string
	Body      []byte
}

// WebhookSender posts one message. It returns the endpoint's status code
// (0 when there was none) and an error unless the endpoint answered 2xx.
// Send must return once ctx is done.
type WebhookSender interface {
	Send(ctx context.Context, m WebhookMessage) (int, error)
}

// WebhookRenderer writes a delivery's body, {"type","timestamp","data"},
// with the batch or the payment as the API shows it (the HTTP adapter
// knows that shape; the domain does not).
type WebhookRenderer interface {
	BatchEvent(t EventType, at time.Time, b Batch) ([]byte, error)
	PaymentEvent(t EventType, at time.Time, p Payment) ([]byte, error)
}

// WebhookPolicy says how the webhook worker retries and holds work.
type WebhookPolicy struct {
	// RetryFor is how long after its event a delivery is still tried;
	// the last failure inside it makes the delivery FAILED.
	RetryFor    time.Duration
	BaseBackoff time.Duration // wait after the first failure; doubles each time, with jitter
	MaxBackoff  time.Duration
	Lease       time.Duration // how long a claim holds before another process may take it
	SendTimeout time.Duration // the most one attempt may take
	BatchSize   int
	// DisableAfter: an endpoint that has answered nothing but failures
	// for this long is disabled, with the reason shown to its organisation.
	DisableAfter time.Duration
}

// DefaultWebhookPolicy is the schedule docs/webhooks.md states to
// integrators ("Retries, failure and disablement"): change both together.
var DefaultWebhookPolicy = WebhookPolicy{
	RetryFor: 72 * time.Hour, BaseBackoff: 30 * time.Second, MaxBackoff: 6 * time.Hour,
	Lease: 2 * time.Minute, SendTimeout: 15 * time.Second, BatchSize: 50, DisableAfter: 5 * 24 * time.Hour,
}

func (p WebhookPolicy) check() error {
	switch {
	case p.BatchSize < 1 || p.SendTimeout <= 0 || p.RetryFor <= 0 || p.BaseBackoff <= 0:
		return fmt.Errorf("webhook policy: BatchSize, SendTimeout, RetryFor and BaseBackoff must be positive")
	case p.Lease < p.SendTimeout+LeaseMargin:
		return fmt.Errorf("webhook policy: Lease %v must cover SendTimeout %v plus %v", p.Lease, p.SendTimeout, LeaseMargin)
	}
	return nil
}

// backoff is the wait after the given number of failed attempts: doubling
// from BaseBackoff up to MaxBackoff, then spread by a random ±20% so that
// the retries of one outage do not all arrive at once.
func (p WebhookPolicy) backoff(attempts int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < attempts && (p.MaxBackoff <= 0 || d < p.MaxBackoff); i++ {
		d *= 2
	}
	if p.MaxBackoff > 0 {
		d = min(d, p.MaxBackoff)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// DeliverWebhooks claims due deliveries under owner's name, signs and
// sends each, and records the outcome: DELIVERED on a 2xx, else another
// attempt after a backoff, or FAILED once the retry window has closed. It
// returns how many it attempted. Leases work as DeliverNotifications'
// do: an attempt starts only while the lease has SendTimeout plus
// LeaseMargin left, so two replicas never send one delivery at once, and
// on shutdown the attempt in flight completes and the rest is handed back.
func (s *Service) DeliverWebhooks(ctx context.Context, sender WebhookSender, render WebhookRenderer, owner string, p WebhookPolicy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	var claimed []WebhookDelivery
	var leaseUntil time.Time
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		leaseUntil = now.Add(p.Lease)
		var err error
		claimed, err = tx.ClaimWebhookDeliveries(ctx, owner, now, leaseUntil, p.BatchSize)
		return err
	})
	if err != nil {
		return 0, err
	}
	bg := context.WithoutCancel(ctx)
	release := func() error {
		return s.Store.Write(bg, func(tx Tx) error { return tx.ReleaseWebhookDeliveries(bg, owner) })
	}
	for i, d := range claimed {
		if ctx.Err() != nil || s.now().Add(p.SendTimeout+LeaseMargin).After(leaseUntil) {
			return i, release()
		}
		err := s.attemptWebhook(bg, sender, render, d, p)
		switch {
		case errors.Is(err, ErrLeaseLost):
			s.Log.WarnContext(ctx, "webhook delivery lease lost before its outcome was written", "id", d.ID, "owner", owner)
			return i + 1, release()
		case errors.Is(err, ErrNotFound):
			// The endpoint was deleted meanwhile, its deliveries with it.
		case err != nil:
			return i + 1, errors.Join(err, release())
		}
	}
	return len(claimed), nil
}

// attemptWebhook sends d once and writes the outcome, and the endpoint's
// failing time (disabling it once it has failed for DisableAfter).
func (s *Service) attemptWebhook(ctx context.Context, sender WebhookSender, render WebhookRenderer, d WebhookDelivery, p WebhookPolicy) error {
	e, body, err := s.webhookBody(ctx, render, d)
	if err != nil {
		return err
	}
	status, sendErr := 0, error(nil)
	if body == nil {
		sendErr = errors.New("the event's batch or payment no longer exists")
	} else {
		sent := s.Clock().UTC()
		msg := WebhookMessage{ID: d.ID, URL: e.URL, Timestamp: sent, Body: body, Signature: SignWebhook(e, d.ID, sent, body)}
		sctx, cancel := context.WithTimeout(ctx, p.SendTimeout)
		status, sendErr = sender.Send(sctx, msg)
		cancel()
	}
	return s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		out := d
		out.Attempts++
		out.LastStatusCode = status
		switch next := now.Add(p.backoff(out.Attempts)); {
		case sendErr == nil:
			out.Status, out.DeliveredAt, out.LastError = DeliveryDelivered, now, ""
		case body == nil || next.After(d.EventAt.Add(p.RetryFor)):
			out.Status, out.LastError = DeliveryFailed, sendErr.Error()
		default:
			out.NextAttemptAt, out.LastError = next, sendErr.Error()
		}
		if err := tx.UpdateWebhookDelivery(ctx, out); err != nil {
			return err
		}
		return s.recordEndpointOutcome(ctx, tx, d.EndpointID, sendErr == nil, now, p)
	})
}

// recordEndpointOutcome keeps the endpoint's failing time: cleared by a
// success, set by the first failure after one, and once it is DisableAfter
// old the endpoint is disabled and the operator's log says so.
func (s *Service) recordEndpointOutcome(ctx context.Context, tx Tx, id string, ok bool, now time.Time, p WebhookPolicy) error {
	e, err := tx.WebhookEndpoint(ctx, id)
	if err != nil {
		return err
	}
	switch {
	case ok && e.FailingSince.IsZero():
		return nil
	case ok:
		e.FailingSince = time.Time{}
	case e.FailingSince.IsZero():
		e.FailingSince = now
	case p.DisableAfter > 0 && e.Enabled && now.Sub(e.FailingSince) >= p.DisableAfter:
		setEnabled(&e, false, fmt.Sprintf("disabled by the service: every delivery failed since %s", e.FailingSince.Format(time.RFC3339)))
		s.Log.WarnContext(ctx, "webhook endpoint disabled after failing", "endpoint", e.ID, "organisation", e.OrganisationID, "failingSince", e.FailingSince)
	default:
		return nil
	}
	e.UpdatedAt = now
	return tx.UpdateWebhookEndpoint(ctx, e)
}

// webhookBody reads the endpoint and the event's resource, as they are
// now, and renders the body; a nil body means the resource is gone.
func (s *Service) webhookBody(ctx context.Context, render WebhookRenderer, d WebhookDelivery) (WebhookEndpoint, []byte, error) {
	var e WebhookEndpoint
	var body []byte
	err := s.Store.Read(ctx, func(tx Tx) error {
		var err error
		if e, err = tx.WebhookEndpoint(ctx, d.EndpointID); err != nil {
			return err
		}
		if d.EventType.IsBatchEvent() {
			b, err := tx.Batch(ctx, d.ResourceID)
			if err == nil {
				body, err = render.BatchEvent(d.EventType, d.EventAt, b)
			}
			return ignoreNotFound(err)
		}
		p, err := tx.Payment(ctx, d.ResourceID)
		if err == nil {
			body, err = render.PaymentEvent(d.EventType, d.EventAt, p)
		}
		return ignoreNotFound(err)
	})
	return e, body, err
}

func ignoreNotFound(err error) error {
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// SignWebhook is the webhook-signature header of a message: Standard
// Webhooks' "v1," and the base64 HMAC-SHA256 of id.timestamp.body under
// the endpoint's secret, and under its previous secret too while that
// still signs, separated by a space.
func SignWebhook(e WebhookEndpoint, id string, at time.Time, body []byte) string {
	sigs := []string{signWith(e.Secret, id, at, body)}
	if e.PreviousSecret != "" && at.Before(e.PreviousSecretUntil) {
		sigs = append(sigs, signWith(e.PreviousSecret, id, at, body))
	}
	return strings.Join(sigs, " ")
}

func signWith(secret, id string, at time.Time, body []byte) string {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		key = []byte(secret) // every secret the service issues decodes; this keeps a hand-made one usable
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + strconv.FormatInt(at.Unix(), 10) + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// WebhookDeliveries lists the deliveries of one of the organisation's
// endpoints, newest first: take of them (1 to 1000, default 1000).
func (s *Service) WebhookDeliveries(ctx context.Context, organisationID, endpointID, take string) ([]WebhookDelivery, error) {
	var v Validation
	_, n := paging(&v, ListQuery{Take: take})
	if err := v.Err(); err != nil {
		return nil, err
	}
	return read(ctx, s.Store, func(tx Tx) ([]WebhookDelivery, error) {
		if _, err := ownWebhook(ctx, tx, organisationID, endpointID); err != nil {
			return nil, err
		}
		return tx.WebhookDeliveries(ctx, endpointID, n)
	})
}

// RetryWebhookDelivery sends a delivery of one of the organisation's
// endpoints again, as soon as the worker comes round: PENDING and due now.
// A delivery an attempt is sending now is a 409.
func (s *Service) RetryWebhookDelivery(ctx context.Context, organisationID, endpointID, deliveryID string) (WebhookDelivery, error) {
	var d WebhookDelivery
	err := s.Store.Write(ctx, func(tx Tx) error {
		if _, err := ownWebhook(ctx, tx, organisationID, endpointID); err != nil {
			return err
		}
		if !ValidID(deliveryID) {
			return notFound("delivery")
		}
		var err error
		if d, err = tx.WebhookDelivery(ctx, deliveryID); err != nil {
			return orNotFound(err, "delivery")
		}
		if d.EndpointID != endpointID {
			return notFound("delivery")
		}
		now := s.now()
		if err := tx.RetryWebhookDelivery(ctx, deliveryID, now); errors.Is(err, ErrLeaseLost) {
			return Errorf(CodeInvalidState, "the delivery is being sent now")
		} else if err != nil {
			return err
		}
		d, err = tx.WebhookDelivery(ctx, deliveryID)
		return err
	})
	return d, err
}
