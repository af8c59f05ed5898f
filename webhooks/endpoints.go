package webhooks

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
	"github.com/disburse/disburse/internal/text"
)

// Config is how the service treats the URLs organisations register.
type Config struct {
	// AllowPrivate lets endpoints be plain http and resolve to private,
	// loopback or link-local addresses: for tests and a demo on one
	// machine, never for a service that organisations reach from outside
	// (server-side request forgery).
	AllowPrivate bool
	// LookupHost resolves a host name to its addresses; nil means the
	// system's resolver.
	LookupHost func(ctx context.Context, host string) ([]netip.Addr, error)
}

// SecretOverlap is how long a rotated-out secret still signs beside the new one.
const SecretOverlap = 24 * time.Hour

// maxWebhookURL bounds a registered URL.
const maxWebhookURL = 2000

// Input is what an organisation sends to register or replace an
// endpoint. Events empty means every event; Enabled nil keeps the endpoint
// as it is (a new one starts enabled).
type Input struct {
	URL     string
	Events  []string
	Enabled *bool
	// APIVersion is the version of the endpoint's bodies (docs/versioning.md):
	// empty is the first; a PUT leaves it as it was.
	APIVersion string
}

// NewSecret returns "whsec_" and the base64 of 32 random bytes: the
// form Standard Webhooks libraries take as a signing key.
func NewSecret() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms.
	return "whsec_" + base64.StdEncoding.EncodeToString(b)
}

// Create registers an endpoint of the organisation. The answer
// carries the secret; no later read shows it.
func (s *Service) Create(ctx context.Context, organisationID string, in Input) (Endpoint, error) {
	events, err := s.checkWebhook(ctx, in)
	if err != nil {
		return Endpoint{}, err
	}
	now := s.now()
	e := Endpoint{ID: disburse.NewID(), OrganisationID: organisationID, URL: in.URL, Events: events,
		Enabled: in.Enabled == nil || *in.Enabled, Secret: NewSecret(), CreatedAt: now, UpdatedAt: now,
		APIVersion: cmp.Or(in.APIVersion, apiversion.First)}
	err = s.Store.Write(ctx, func(tx Tx) error {
		if err := tx.InsertWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		return s.audit(ctx, tx, disburse.ActorOf(ctx), "webhook.created", e, auditEndpoint(e))
	})
	return e, err
}

// Endpoints lists the organisation's endpoints, oldest first.
func (s *Service) Endpoints(ctx context.Context, organisationID string) ([]Endpoint, error) {
	return read(ctx, s.Store, func(tx Tx) ([]Endpoint, error) { return tx.WebhookEndpoints(ctx, organisationID) })
}

// AllEndpoints lists every organisation's endpoints, or one organisation's
// when organisationID is not empty: the operator's view.
func (s *Service) AllEndpoints(ctx context.Context, organisationID string) ([]Endpoint, error) {
	if organisationID != "" && !disburse.ValidID(organisationID) {
		return nil, disburse.Invalid("OrganisationId", organisationID, "organisationId must be an organisation's id")
	}
	return s.Endpoints(ctx, organisationID)
}

// Endpoint reads one of the organisation's endpoints.
func (s *Service) Endpoint(ctx context.Context, organisationID, id string) (Endpoint, error) {
	return read(ctx, s.Store, func(tx Tx) (Endpoint, error) { return ownWebhook(ctx, tx, organisationID, id) })
}

// Update replaces the endpoint's URL and events, and its state when
// in.Enabled says. Enabling it again forgets why it was disabled and how
// long it had been failing.
func (s *Service) Update(ctx context.Context, organisationID, id string, in Input) (Endpoint, error) {
	events, err := s.checkWebhook(ctx, in)
	if err != nil {
		return Endpoint{}, err
	}
	return s.changeWebhook(ctx, organisationID, id, "webhook.changed", func(e *Endpoint) {
		e.URL, e.Events = in.URL, events
		if in.Enabled != nil {
			setEnabled(e, *in.Enabled, "")
		}
	})
}

// RotateSecret gives the endpoint a new secret, returned once. The
// old one keeps signing beside it for SecretOverlap.
func (s *Service) RotateSecret(ctx context.Context, organisationID, id string) (Endpoint, error) {
	return s.changeWebhook(ctx, organisationID, id, "webhook.secretRotated", func(e *Endpoint) {
		e.PreviousSecret, e.PreviousSecretUntil = e.Secret, e.UpdatedAt.Add(SecretOverlap)
		e.Secret = NewSecret()
	})
}

// Delete deletes the endpoint and its delivery log.
func (s *Service) Delete(ctx context.Context, organisationID, id string) error {
	return s.Store.Write(ctx, func(tx Tx) error {
		e, err := ownWebhook(ctx, tx, organisationID, id)
		if err != nil {
			return err
		}
		if err := tx.DeleteWebhookEndpoint(ctx, id); err != nil {
			return err
		}
		return s.audit(ctx, tx, disburse.ActorOf(ctx), "webhook.deleted", e, auditEndpoint(e))
	})
}

// Disable is the operator's: the endpoint stops receiving, with the
// reason shown to its organisation, until the organisation enables it.
func (s *Service) Disable(ctx context.Context, id, reason string) (Endpoint, error) {
	if !text.Valid(reason) || len([]rune(reason)) > 200 {
		return Endpoint{}, disburse.Invalid("Reason", reason, "reason is text of at most 200 characters")
	}
	if reason == "" {
		reason = "disabled by the operator"
	}
	return s.changeWebhook(ctx, "", id, "webhook.disabled", func(e *Endpoint) { setEnabled(e, false, reason) })
}

// changeWebhook applies change to an endpoint of the organisation (any
// organisation's when organisationID is empty) in one transaction, with
// its audit entry, action.
func (s *Service) changeWebhook(ctx context.Context, organisationID, id, action string, change func(*Endpoint)) (Endpoint, error) {
	var e Endpoint
	err := s.Store.Write(ctx, func(tx Tx) error {
		var err error
		if e, err = ownWebhook(ctx, tx, organisationID, id); err != nil {
			return err
		}
		before := auditEndpoint(e)
		e.UpdatedAt = s.now()
		change(&e)
		if err := tx.UpdateWebhookEndpoint(ctx, e); err != nil {
			return err
		}
		return s.audit(ctx, tx, disburse.ActorOf(ctx), action, e, disburse.Change(before, auditEndpoint(e)))
	})
	return e, err
}

// audit appends an entry about endpoint e to the audit log, in tx.
func (s *Service) audit(ctx context.Context, tx Tx, actor disburse.Actor, action string, e Endpoint, details any) error {
	return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), actor, action, e.OrganisationID, e.ID, details))
}

// auditEndpoint is what the audit log keeps of an endpoint: never its secrets.
func auditEndpoint(e Endpoint) map[string]any {
	return map[string]any{"url": e.URL, "events": e.Events, "enabled": e.Enabled, "disabledReason": e.DisabledReason}
}

func setEnabled(e *Endpoint, enabled bool, reason string) {
	e.Enabled, e.DisabledReason = enabled, reason
	if enabled {
		e.FailingSince = time.Time{}
	}
}

// ownWebhook reads an endpoint: not found unless the organisation owns it
// (organisationID empty: the operator, who sees every endpoint).
func ownWebhook(ctx context.Context, tx Tx, organisationID, id string) (Endpoint, error) {
	if !disburse.ValidID(id) {
		return Endpoint{}, disburse.NotFound("webhook")
	}
	e, err := tx.WebhookEndpoint(ctx, id)
	if err != nil {
		return Endpoint{}, disburse.OrNotFound(err, "webhook")
	}
	if organisationID != "" && e.OrganisationID != organisationID {
		return Endpoint{}, disburse.NotFound("webhook")
	}
	return e, nil
}

// checkWebhook validates an endpoint's URL and events, reporting every
// failure in one array, and returns the events without repeats.
func (s *Service) checkWebhook(ctx context.Context, in Input) ([]disburse.EventType, error) {
	var v disburse.Validation
	if msg := s.checkWebhookURL(ctx, in.URL); msg != "" {
		v.Add(-1, "Url", in.URL, msg)
	}
	var events []disburse.EventType
	known := disburse.EventTypes()
	for _, name := range in.Events {
		t := disburse.EventType(name)
		switch {
		case !slices.Contains(known, t):
			v.Add(-1, "Events", name, fmt.Sprintf("unknown event %q; the events are %s", name, eventList(known)))
		case !slices.Contains(events, t):
			events = append(events, t)
		}
	}
	if in.APIVersion != "" && !apiversion.Known(in.APIVersion) {
		v.Add(-1, "ApiVersion", in.APIVersion, "apiVersion must be one of "+strings.Join(apiversion.All, ", "))
	}
	return events, v.Err()
}

func eventList(ts []disburse.EventType) string {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// checkWebhookURL returns why raw cannot be an endpoint, or "". An
// endpoint is an absolute https URL whose host resolves to public
// addresses only; plain http and private addresses only where the
// operator allows them. Delivery checks the address it connects to
// again, since a name can resolve elsewhere later.
func (s *Service) checkWebhookURL(ctx context.Context, raw string) string {
	u, problem := s.parseWebhookURL(raw)
	if problem != "" || s.Config.AllowPrivate {
		return problem
	}
	addrs, err := s.lookupHost(ctx, u.Hostname())
	if err != nil || len(addrs) == 0 {
		return "url's host does not resolve"
	}
	for _, a := range addrs {
		if !PublicAddr(a) {
			return "url's host resolves to a private, loopback or link-local address"
		}
	}
	return ""
}

// parseWebhookURL parses raw and says what is wrong with its form, if
// anything: where it may point is checkWebhookURL's to say.
func (s *Service) parseWebhookURL(raw string) (*url.URL, string) {
	if raw == "" {
		return nil, "url is required"
	}
	if !text.Valid(raw) || len(raw) > maxWebhookURL {
		return nil, fmt.Sprintf("url must be text of at most %d characters", maxWebhookURL)
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		return nil, "url must be an absolute http or https URL"
	case u.Scheme != "https" && u.Scheme != "http":
		return nil, "url must be an absolute http or https URL"
	case u.User != nil:
		return nil, "url must not carry a user name or password"
	case u.Scheme == "http" && !s.Config.AllowPrivate:
		return nil, "url must be https"
	}
	return u, ""
}

func (s *Service) lookupHost(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if s.Config.LookupHost != nil {
		return s.Config.LookupHost(ctx, host)
	}
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}
