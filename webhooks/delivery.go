package webhooks

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/fanout"
)

// Message is one signed attempt, as the sender puts it on the wire:
// the Standard Webhooks headers webhook-id (ID), webhook-timestamp
// (Timestamp, unix seconds) and webhook-signature (Signature), and Body.
type Message struct {
	ID        string
	URL       string
	Timestamp time.Time
	Signature string
	Body      []byte
}

// Sender posts one message. It returns the endpoint's status code
// (0 when there was none) and an error unless the endpoint answered 2xx.
// Send must return once ctx is done.
type Sender interface {
	Send(ctx context.Context, m Message) (int, error)
}

// Renderer writes a delivery's body, {"type","timestamp","data"},
// with the batch, the payment or the approval as the API shows it in
// version, the endpoint's (docs/versioning.md): the HTTP adapter knows
// that shape; the domain does not.
type Renderer interface {
	BatchEvent(version string, t disburse.EventType, at time.Time, b disburse.Batch) ([]byte, error)
	PaymentEvent(version string, t disburse.EventType, at time.Time, p disburse.Payment) ([]byte, error)
	ApprovalEvent(version string, t disburse.EventType, at time.Time, a disburse.Approval) ([]byte, error)
}

// Policy says how the webhook worker retries and holds work.
type Policy struct {
	// RetryFor is how long after its event a delivery is still tried;
	// the last failure inside it makes the delivery FAILED.
	RetryFor    time.Duration
	BaseBackoff time.Duration // wait after the first failure; doubles each time, with jitter
	MaxBackoff  time.Duration
	// Lease is how long a claim holds unless its process renews it, as
	// notifications.Policy's does.
	Lease       time.Duration
	SendTimeout time.Duration // the most one attempt may take
	BatchSize   int           // deliveries one claim leases
	// Concurrency is how many attempts one process has in flight at once,
	// to any endpoints; 0 or 1 sends one at a time.
	Concurrency int
	// PerEndpoint is how many of those one endpoint may hold; 0 is no
	// limit of its own. An endpoint that hangs holds no more.
	PerEndpoint int
	// Poll is how often Deliver looks for deliveries that fell due while
	// attempts are in flight; 0 is DefaultPoll.
	Poll time.Duration
	// Rate is the most attempts one process starts a second; 0 is no limit.
	Rate int
	// DisableAfter: an endpoint that has answered nothing but failures
	// for this long is disabled, with the reason shown to its organisation.
	DisableAfter time.Duration
}

// DefaultPolicy is the schedule docs/webhooks.md states to
// integrators ("Retries, failure and disablement"): change both together.
var DefaultPolicy = Policy{
	RetryFor: 72 * time.Hour, BaseBackoff: 30 * time.Second, MaxBackoff: 6 * time.Hour,
	Lease: fanout.DefaultLease, SendTimeout: 15 * time.Second, BatchSize: 500, Concurrency: fanout.DefaultConcurrency,
	PerEndpoint: fanout.DefaultConcurrency / 4, DisableAfter: 5 * 24 * time.Hour,
}

// DefaultPoll is how often a delivery worker with attempts in flight
// looks for work that fell due meanwhile.
const DefaultPoll = 200 * time.Millisecond

func (p Policy) poll() time.Duration {
	if p.Poll <= 0 {
		return DefaultPoll
	}
	return p.Poll
}

func (p Policy) check() error {
	switch {
	case p.BatchSize < 1 || p.SendTimeout <= 0 || p.Lease <= 0 || p.RetryFor <= 0 || p.BaseBackoff <= 0 || p.Concurrency < 0 || p.Rate < 0 || p.PerEndpoint < 0:
		return fmt.Errorf("webhook policy: BatchSize, SendTimeout, Lease, RetryFor and BaseBackoff must be positive, Concurrency, PerEndpoint and Rate not negative")
	}
	return nil
}

// backoff is the wait after the given number of failed attempts: doubling
// from BaseBackoff up to MaxBackoff, then spread by a random ±20% so that
// the retries of one outage do not all arrive at once.
func (p Policy) backoff(attempts int) time.Duration {
	d := p.BaseBackoff
	for i := 1; i < attempts && (p.MaxBackoff <= 0 || d < p.MaxBackoff); i++ {
		d *= 2
	}
	if p.MaxBackoff > 0 {
		d = min(d, p.MaxBackoff)
	}
	return time.Duration(float64(d) * (0.8 + 0.4*rand.Float64()))
}

// Deliver claims due deliveries under owner's name, signs and sends them,
// and records the outcomes as they end: DELIVERED on a 2xx, else another
// attempt after a backoff, or FAILED once the retry window has closed; and
// each endpoint's failing time, which disables an endpoint that keeps
// failing. It returns how many it attempted, once nothing is due and no
// attempt is in flight.
//
// Claims are fair to every endpoint (docs/webhooks.md, "The worker, on one
// process or several"): one process has at most p.Concurrency attempts in
// flight, and at most p.PerEndpoint to one endpoint; a claim takes none of
// an endpoint that holds its share, its rows start as their endpoints get
// slots, and the worker claims again while the claims before it are still
// sending (fanout.Dispatch). An endpoint that never answers holds its own
// slots until SendTimeout, and the others' deliveries go past it. Leases
// work as notifications.Service.Deliver's do: a heartbeat renews them
// while the process lives, an attempt starts only while it keeps the
// claim, so two replicas never send one delivery at once, an outcome is
// written only while the row is still this owner's, and on shutdown the
// attempts in flight complete and the rest is handed back.
func (s *Service) Deliver(ctx context.Context, sender Sender, render Renderer, owner string, p Policy) (int, error) {
	if err := p.check(); err != nil {
		return 0, err
	}
	bg := context.WithoutCancel(ctx)
	leases := fanout.NewLeases(p.Lease, s.now, func(ids []string, now, until time.Time) ([]string, error) {
		var renewed []string
		err := s.Store.Write(bg, func(tx Tx) (err error) {
			renewed, err = tx.ExtendWebhookLeases(bg, owner, ids, now, until)
			return err
		})
		if err != nil {
			s.Log.WarnContext(ctx, "webhook leases not renewed", "err", err, "owner", owner)
		}
		return renewed, err
	})
	defer leases.Start()()
	slots := fanout.NewSlots(p.Concurrency, p.PerEndpoint)
	unwritten := fanout.NewUnwritten(p.Concurrency)
	turn := fanout.NewPace(p.Rate)
	return fanout.Dispatch(ctx, slots, p.poll(), func(_ int, full []string) (int, func() (int, error), error) {
		return s.claimWebhooks(ctx, sender, render, owner, p, claimRoom{slots, unwritten, turn, leases, full})
	})
}

// claimRoom is what one claim of Deliver works within: the process's
// slots, its bound on attempts whose outcome is not yet written, the pace
// of the attempts, the heartbeat of its leases, and none of the endpoints
// in full.
type claimRoom struct {
	slots     *fanout.Slots
	unwritten fanout.Unwritten
	turn      fanout.Pace
	leases    *fanout.Leases
	full      []string
}

// claimWebhooks claims up to p.BatchSize deliveries, none of an endpoint
// that holds its share of the slots, and returns how many and the run that
// attempts each once its endpoint has a slot.
func (s *Service) claimWebhooks(ctx context.Context, sender Sender, render Renderer, owner string, p Policy, room claimRoom) (int, func() (int, error), error) {
	var claimed []Delivery
	var leaseUntil time.Time
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.now()
		leaseUntil = now.Add(p.Lease)
		var err error
		claimed, err = tx.ClaimWebhookDeliveries(ctx, DeliveryClaim{Owner: owner, Now: now, LeaseUntil: leaseUntil, Limit: p.BatchSize, Skip: room.full})
		return err
	})
	if err != nil || len(claimed) == 0 {
		return 0, nil, err
	}
	hold := room.leases.Hold(fanout.IDs(claimed, func(d Delivery) string { return d.ID }), leaseUntil)
	bg := context.WithoutCancel(ctx)
	attempts, err := s.webhookAttempts(bg, render, claimed)
	if err != nil || len(attempts) == 0 {
		room.leases.Drop(hold)
	}
	if err != nil {
		all := fanout.IDs(claimed, func(d Delivery) string { return d.ID })
		return 0, nil, errors.Join(err, s.Store.Write(bg, func(tx Tx) error { return tx.ReleaseWebhookDeliveries(bg, owner, all) }))
	}
	if len(attempts) == 0 { // every endpoint was deleted meanwhile, and its deliveries with it
		return 0, nil, nil
	}
	mayStart := func(ctx context.Context, a webhookAttempt) bool {
		if !room.slots.Wait(ctx, a.d.EndpointID) {
			return false
		}
		if room.unwritten.Wait(ctx) {
			if room.turn.Wait(ctx) && hold.MayStart(s.now()) {
				return true
			}
			room.unwritten.Give()
		}
		room.slots.Give(a.d.EndpointID)
		return false
	}
	attempt := func(a webhookAttempt) webhookAttempt {
		defer room.slots.Give(a.d.EndpointID)
		return s.attemptWebhook(bg, sender, a, p)
	}
	record := func(outcomes, unattempted []webhookAttempt) (bool, error) {
		var lost bool
		ids := fanout.IDs(append(slices.Clip(outcomes), unattempted...), func(a webhookAttempt) string { return a.d.ID })
		err := hold.Write(ids, func() (err error) {
			lost, err = s.recordWebhooks(ctx, owner, p, outcomes, unattempted)
			return err
		})
		room.unwritten.Written(len(outcomes), fanout.Settled(unattempted, err))
		return lost, err
	}
	return len(attempts), func() (int, error) {
		defer room.leases.Drop(hold)
		return fanout.Run(ctx, attempts, len(attempts), mayStart, attempt, record)
	}, nil
}

// recordWebhooks writes a group of outcomes and hands back what was never
// attempted, in one transaction. It reports whether a lease was lost.
func (s *Service) recordWebhooks(ctx context.Context, owner string, p Policy, outcomes, unattempted []webhookAttempt) (bool, error) {
	bg := context.WithoutCancel(ctx)
	ds := make([]Delivery, len(outcomes))
	for i, a := range outcomes {
		ds[i] = a.d
	}
	written := 0
	err := s.Store.Write(bg, func(tx Tx) error {
		var err error
		if written, err = tx.UpdateWebhookDeliveries(bg, ds); err != nil {
			return err
		}
		if err := s.recordEndpointOutcomes(bg, tx, outcomes, p); err != nil {
			return err
		}
		return tx.ReleaseWebhookDeliveries(bg, owner, fanout.IDs(unattempted, func(a webhookAttempt) string { return a.d.ID }))
	})
	if err != nil || written == len(ds) {
		return false, err
	}
	// Lost leases, or deliveries whose endpoint was deleted meanwhile.
	s.Log.WarnContext(ctx, "webhook deliveries not recorded: their lease was lost or they were deleted", "lost", len(ds)-written, "owner", owner)
	return true, nil
}

// webhookAttempt is one claimed delivery on its way: the endpoint and the
// body it is sent with, then its outcome.
type webhookAttempt struct {
	d    Delivery // the claimed delivery; once attempted, its outcome
	e    Endpoint
	body []byte    // nil: the event's batch or payment no longer exists
	ok   bool      // the endpoint answered 2xx
	at   time.Time // when the attempt ended
}

// attemptWebhook signs and sends a once, and sets its outcome.
func (s *Service) attemptWebhook(ctx context.Context, sender Sender, a webhookAttempt, p Policy) webhookAttempt {
	status, sendErr := 0, error(nil)
	if a.body == nil {
		sendErr = errors.New("the event's batch or payment no longer exists")
	} else {
		sent := s.Clock().UTC()
		msg := Message{ID: a.d.ID, URL: a.e.URL, Timestamp: sent, Body: a.body, Signature: Sign(a.e, a.d.ID, sent, a.body)}
		sctx, cancel := context.WithTimeout(ctx, p.SendTimeout)
		status, sendErr = sender.Send(sctx, msg)
		cancel()
	}
	now := s.now()
	out := &a.d
	out.Attempts++
	out.LastStatusCode = status
	outcome := AttemptDelivered
	switch next := now.Add(p.backoff(out.Attempts)); {
	case sendErr == nil:
		out.Status, out.DeliveredAt, out.LastError = DeliveryDelivered, now, ""
	case a.body == nil || next.After(out.EventAt.Add(p.RetryFor)):
		out.Status, out.LastError = DeliveryFailed, sendErr.Error()
		outcome = AttemptGaveUp
	default:
		out.NextAttemptAt, out.LastError = next, sendErr.Error()
		outcome = AttemptRetrying
	}
	s.attempted(ctx, a, outcome, sendErr)
	a.ok, a.at = sendErr == nil, now
	return a
}

// recordEndpointOutcomes keeps each endpoint's failing time, going through
// its attempts in the order they ended: cleared by a success, set by the
// first failure after one, and once it is DisableAfter old the endpoint is
// disabled and the operator's log says so. An attempt that sent nothing
// (its resource was gone) says nothing of the endpoint; an endpoint deleted
// meanwhile is skipped. Each endpoint is read and written once per group.
func (s *Service) recordEndpointOutcomes(ctx context.Context, tx Tx, outcomes []webhookAttempt, p Policy) error {
	var ids []string
	for _, a := range outcomes {
		if a.body != nil && !slices.Contains(ids, a.d.EndpointID) {
			ids = append(ids, a.d.EndpointID)
		}
	}
	for _, id := range ids {
		e, err := tx.WebhookEndpoint(ctx, id)
		if errors.Is(err, disburse.ErrNotFound) {
			continue
		} else if err != nil {
			return err
		}
		wasEnabled := e.Enabled
		if !s.applyOutcomes(ctx, &e, outcomes, p) {
			continue
		}
		e.UpdatedAt = s.now()
		if err := tx.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		if wasEnabled && !e.Enabled {
			if err := s.audit(ctx, tx, disburse.ActorOf(ctx), "webhook.disabled", e, map[string]string{"reason": e.DisabledReason}); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyOutcomes moves e's failing time by its attempts among outcomes, in
// order, and disables e once it has failed for p.DisableAfter. It reports
// whether e changed.
func (s *Service) applyOutcomes(ctx context.Context, e *Endpoint, outcomes []webhookAttempt, p Policy) bool {
	changed := false
	for _, a := range outcomes {
		if a.body == nil || a.d.EndpointID != e.ID {
			continue
		}
		switch {
		case a.ok && e.FailingSince.IsZero():
		case a.ok:
			e.FailingSince, changed = time.Time{}, true
		case e.FailingSince.IsZero():
			e.FailingSince, changed = a.at, true
		case p.DisableAfter > 0 && e.Enabled && a.at.Sub(e.FailingSince) >= p.DisableAfter:
			setEnabled(e, false, fmt.Sprintf("disabled by the service: every delivery failed since %s", e.FailingSince.Format(time.RFC3339)))
			changed = true
			if s.Meter != nil {
				s.Meter.EndpointDisabled()
			}
			s.Log.WarnContext(ctx, "webhook endpoint disabled after failing", "endpoint", e.ID, "organisation", e.OrganisationID, "failingSince", e.FailingSince)
		}
	}
	return changed
}

// webhookAttempts reads, in one transaction, the endpoints of the claimed
// deliveries and their events' batches, payments and approvals as they
// are now, each once, and renders every body. A delivery whose endpoint
// was deleted meanwhile (its deliveries with it) is left out.
func (s *Service) webhookAttempts(ctx context.Context, render Renderer, claimed []Delivery) ([]webhookAttempt, error) {
	var out []webhookAttempt
	err := s.Store.Read(ctx, func(tx Tx) error {
		out = make([]webhookAttempt, 0, len(claimed))
		res, err := readEventResources(ctx, tx, claimed)
		if err != nil {
			return err
		}
		endpoints := map[string]*Endpoint{}
		for _, d := range claimed {
			e, err := readOnce(endpoints, d.EndpointID, func(id string) (Endpoint, error) { return tx.WebhookEndpoint(ctx, id) })
			if err != nil {
				return err
			}
			if e == nil {
				continue
			}
			a := webhookAttempt{d: d, e: *e}
			if a.body, err = res.body(render, *e, d); err != nil {
				return err
			}
			out = append(out, a)
		}
		return nil
	})
	return out, err
}

// eventResources are the batches, payments and approvals of the claimed
// deliveries' events, by id, as they are now.
type eventResources struct {
	batches   map[string]disburse.Batch
	payments  map[string]disburse.Payment
	approvals map[string]disburse.Approval
}

// readEventResources reads the events' resources in one statement per
// kind: read one by one, they were half the time of a drain of payment
// events.
func readEventResources(ctx context.Context, tx Tx, claimed []Delivery) (eventResources, error) {
	var batchIDs, paymentIDs, approvalIDs []string
	for _, d := range claimed {
		switch {
		case isBatchEvent(d.EventType):
			batchIDs = append(batchIDs, d.ResourceID)
		case IsApprovalEvent(d.EventType):
			approvalIDs = append(approvalIDs, d.ResourceID)
		default:
			paymentIDs = append(paymentIDs, d.ResourceID)
		}
	}
	var r eventResources
	var err error
	if r.batches, err = tx.BatchesByID(ctx, batchIDs); err != nil {
		return r, err
	}
	if r.payments, err = tx.PaymentsByID(ctx, paymentIDs); err != nil {
		return r, err
	}
	r.approvals, err = tx.ApprovalsByID(ctx, approvalIDs)
	return r, err
}

// body renders d's body for e; nil when its event's resource no longer
// exists.
func (r eventResources) body(render Renderer, e Endpoint, d Delivery) ([]byte, error) {
	switch {
	case isBatchEvent(d.EventType):
		if b, ok := r.batches[d.ResourceID]; ok {
			return render.BatchEvent(e.APIVersion, d.EventType, d.EventAt, b)
		}
	case IsApprovalEvent(d.EventType):
		if ap, ok := r.approvals[d.ResourceID]; ok {
			return render.ApprovalEvent(e.APIVersion, d.EventType, d.EventAt, ap)
		}
	default:
		if p, ok := r.payments[d.ResourceID]; ok {
			return render.PaymentEvent(e.APIVersion, d.EventType, d.EventAt, p)
		}
	}
	return nil, nil
}

// readOnce returns the row id names through seen, reading it the first
// time; nil when it does not exist.
func readOnce[T any](seen map[string]*T, id string, read func(string) (T, error)) (*T, error) {
	if v, ok := seen[id]; ok {
		return v, nil
	}
	v, err := read(id)
	if errors.Is(err, disburse.ErrNotFound) {
		seen[id] = nil
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	seen[id] = &v
	return &v, nil
}

// Sign is the webhook-signature header of a message: Standard
// Webhooks' "v1," and the base64 HMAC-SHA256 of id.timestamp.body under
// the endpoint's secret, and under its previous secret too while that
// still signs, separated by a space.
func Sign(e Endpoint, id string, at time.Time, body []byte) string {
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

// Deliveries lists the deliveries of one of the organisation's
// endpoints, newest first: take of them (1 to 1000, default 1000).
func (s *Service) Deliveries(ctx context.Context, organisationID, endpointID, take string) ([]Delivery, error) {
	var v disburse.Validation
	_, n := disburse.Paging(&v, disburse.ListQuery{Take: take})
	if err := v.Err(); err != nil {
		return nil, err
	}
	return read(ctx, s.Store, func(tx Tx) ([]Delivery, error) {
		if _, err := ownWebhook(ctx, tx, organisationID, endpointID); err != nil {
			return nil, err
		}
		return tx.WebhookDeliveries(ctx, endpointID, n)
	})
}

// RetryDelivery sends a delivery of one of the organisation's
// endpoints again, as soon as the worker comes round: PENDING and due now.
// A delivery an attempt is sending now is a 409.
func (s *Service) RetryDelivery(ctx context.Context, organisationID, endpointID, deliveryID string) (Delivery, error) {
	var d Delivery
	err := s.Store.Write(ctx, func(tx Tx) error {
		if _, err := ownWebhook(ctx, tx, organisationID, endpointID); err != nil {
			return err
		}
		if !disburse.ValidID(deliveryID) {
			return disburse.NotFound("delivery")
		}
		var err error
		if d, err = tx.WebhookDelivery(ctx, deliveryID); err != nil {
			return disburse.OrNotFound(err, "delivery")
		}
		if d.EndpointID != endpointID {
			return disburse.NotFound("delivery")
		}
		now := s.now()
		if err := tx.RetryWebhookDelivery(ctx, deliveryID, now); errors.Is(err, ErrLeaseLost) {
			return disburse.Errorf(disburse.CodeInvalidState, "the delivery is being sent now")
		} else if err != nil {
			return err
		}
		d, err = tx.WebhookDelivery(ctx, deliveryID)
		return err
	})
	return d, err
}

// isBatchEvent reports whether the event's resource is a batch: a
// delivery renders the batch.
func isBatchEvent(e disburse.EventType) bool {
	return e == disburse.EventBatchSubmitted || e == disburse.EventBatchClosed || e == disburse.EventBatchCancelled
}

// IsApprovalEvent reports whether the event's resource is an approval: a
// delivery renders the approval (neither a batch's nor an approval's
// event is a payment's).
func IsApprovalEvent(e disburse.EventType) bool {
	return e == disburse.EventApprovalRequested || e == disburse.EventApprovalApproved ||
		e == disburse.EventApprovalRejected || e == disburse.EventApprovalCancelled
}
