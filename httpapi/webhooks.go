package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/webhooks"
)

// The webhook routes of the organisation API and the operator's
// (docs/webhooks.md). An endpoint's secret is in the answer to its
// creation and to a rotation, never in a read.

type webhookRequest struct {
	URL     string   `json:"url"`
	Events  []string `json:"events"`
	Enabled *bool    `json:"enabled"`
	// APIVersion is the version of the endpoint's bodies, set at its
	// creation (docs/versioning.md); a PUT ignores it.
	APIVersion string `json:"apiVersion"`
}

func (req webhookRequest) input() webhooks.Input {
	return webhooks.Input{URL: req.URL, Events: req.Events, Enabled: req.Enabled, APIVersion: req.APIVersion}
}

type webhookJSON struct {
	ID             string               `json:"id"`
	OrganisationID string               `json:"organisationId,omitempty"`
	URL            string               `json:"url"`
	Events         []disburse.EventType `json:"events"`
	Enabled        bool                 `json:"enabled"`
	APIVersion     string               `json:"apiVersion,omitempty"` // as organisationJSON's
	DisabledReason string               `json:"disabledReason,omitempty"`
	Secret         string               `json:"secret,omitempty"`
	FailingSince   dateTime             `json:"failingSince,omitzero"`
	CreatedAt      dateTime             `json:"createdAt"`
	UpdatedAt      dateTime             `json:"updatedAt"`
}

// toWebhook shows an endpoint without its secret; an empty events list,
// every event, is [] rather than null.
func toWebhook(e webhooks.Endpoint) webhookJSON {
	events := e.Events
	if events == nil {
		events = []disburse.EventType{}
	}
	return webhookJSON{ID: e.ID, URL: e.URL, Events: events, Enabled: e.Enabled, DisabledReason: e.DisabledReason,
		FailingSince: dateTime(e.FailingSince), CreatedAt: dateTime(e.CreatedAt), UpdatedAt: dateTime(e.UpdatedAt)}
}

func toWebhookWithSecret(e webhooks.Endpoint) webhookJSON {
	j := toWebhook(e)
	j.Secret = e.Secret
	return j
}

func toAdminWebhook(e webhooks.Endpoint) webhookJSON {
	j := toWebhook(e)
	j.OrganisationID = e.OrganisationID
	return j
}

type deliveryJSON struct {
	ID             string                  `json:"id"`
	WebhookID      string                  `json:"webhookId"`
	Type           disburse.EventType      `json:"type"`
	ResourceID     string                  `json:"resourceId"`
	EventAt        dateTime                `json:"eventAt"`
	Status         webhooks.DeliveryStatus `json:"status"`
	Attempts       int                     `json:"attempts"`
	NextAttemptAt  dateTime                `json:"nextAttemptAt,omitzero"`
	LastStatusCode int                     `json:"lastStatusCode,omitempty"`
	LastError      string                  `json:"lastError,omitempty"`
	CreatedAt      dateTime                `json:"createdAt"`
	DeliveredAt    dateTime                `json:"deliveredAt,omitzero"`
}

func toDelivery(d webhooks.Delivery) deliveryJSON {
	j := deliveryJSON{ID: d.ID, WebhookID: d.EndpointID, Type: d.EventType, ResourceID: d.ResourceID, EventAt: dateTime(d.EventAt),
		Status: d.Status, Attempts: d.Attempts, LastStatusCode: d.LastStatusCode, LastError: d.LastError,
		CreatedAt: dateTime(d.CreatedAt), DeliveredAt: dateTime(d.DeliveredAt)}
	if d.Status == webhooks.DeliveryPending {
		j.NextAttemptAt = dateTime(d.NextAttemptAt)
	}
	return j
}

func (s *server) createWebhook(w http.ResponseWriter, r *http.Request, orgID string) error {
	var req webhookRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	in := req.input()
	if in.APIVersion == "" {
		in.APIVersion = organisationDefault(r)
	}
	e, err := s.hooks.Create(r.Context(), orgID, in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/webhooks/"+e.ID)
	return writeJSON(w, http.StatusCreated, toWebhookWithSecret(e))
}

func (s *server) listWebhooks(w http.ResponseWriter, r *http.Request, orgID string) error {
	es, err := s.hooks.Endpoints(r.Context(), orgID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(es, toWebhook))
}

func (s *server) getWebhook(w http.ResponseWriter, r *http.Request, orgID string) error {
	e, err := s.hooks.Endpoint(r.Context(), orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	j := toWebhook(e)
	j.APIVersion = withAPIVersion(r, e.APIVersion)
	return writeJSON(w, http.StatusOK, j)
}

func (s *server) updateWebhook(w http.ResponseWriter, r *http.Request, orgID string) error {
	var req webhookRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	e, err := s.hooks.Update(r.Context(), orgID, r.PathValue("id"), req.input())
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toWebhook(e))
}

func (s *server) deleteWebhook(w http.ResponseWriter, r *http.Request, orgID string) error {
	if err := s.hooks.Delete(r.Context(), orgID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// rotateWebhookSecret answers with the new secret, once.
func (s *server) rotateWebhookSecret(w http.ResponseWriter, r *http.Request, orgID string) error {
	e, err := s.hooks.RotateSecret(r.Context(), orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toWebhookWithSecret(e))
}

func (s *server) listWebhookDeliveries(w http.ResponseWriter, r *http.Request, orgID string) error {
	ds, err := s.hooks.Deliveries(r.Context(), orgID, r.PathValue("id"), r.URL.Query().Get("take"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(ds, toDelivery))
}

func (s *server) retryWebhookDelivery(w http.ResponseWriter, r *http.Request, orgID string) error {
	d, err := s.hooks.RetryDelivery(r.Context(), orgID, r.PathValue("id"), r.PathValue("deliveryId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusAccepted, toDelivery(d))
}

func (s *server) adminWebhooks(w http.ResponseWriter, r *http.Request) error {
	es, err := s.hooks.AllEndpoints(r.Context(), r.URL.Query().Get("organisationId"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toList(es, toAdminWebhook))
}

type disableWebhookRequest struct {
	Reason string `json:"reason"`
}

// adminDisableWebhook takes an optional body with a reason.
func (s *server) adminDisableWebhook(w http.ResponseWriter, r *http.Request) error {
	var req disableWebhookRequest
	if err := decodeOptional(r, &req); err != nil {
		return err
	}
	e, err := s.hooks.Disable(r.Context(), r.PathValue("id"), req.Reason)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toAdminWebhook(e))
}

// WebhookRenderer writes the bodies of webhook deliveries:
// {"type","timestamp","data"}, data being the batch as GET /batches/{id}
// shows it or the payment as GET /payments/{id} does.
type WebhookRenderer struct{}

type eventJSON struct {
	Type      disburse.EventType `json:"type"`
	Timestamp dateTime           `json:"timestamp"`
	Data      any                `json:"data"`
}

// BatchEvent is the body of a batch's event.
func (WebhookRenderer) BatchEvent(version string, t disburse.EventType, at time.Time, b disburse.Batch) ([]byte, error) {
	return inVersion(version)(json.Marshal(eventJSON{Type: t, Timestamp: dateTime(at), Data: toBatch(b)}))
}

// PaymentEvent is the body of a payment's event.
func (WebhookRenderer) PaymentEvent(version string, t disburse.EventType, at time.Time, p disburse.Payment) ([]byte, error) {
	return inVersion(version)(json.Marshal(eventJSON{Type: t, Timestamp: dateTime(at), Data: toPayment(p)}))
}
