package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/webhooks"
)

// meter counts what the use cases report (disburse.Meter) and what the
// notification and webhook delivery do (notifications.Meter,
// webhooks.Meter), so that the root and those packages stay free of
// prometheus. Every label comes from a fixed list but currency, an
// organisation's ISO code the operator sets; none names a payee, an
// organisation or an endpoint.
type meter struct {
	money         *prometheus.CounterVec
	payments      *prometheus.CounterVec
	notifications *prometheus.CounterVec
	webhooks      *prometheus.CounterVec
	endpointsOff  prometheus.Counter
}

func newMeter(reg prometheus.Registerer) *meter {
	m := &meter{
		money: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_money_minor_units_total",
			Help: "Money moved by committed transactions, in minor units, by kind (settled, held, reversed, cancelled) and currency.",
		}, []string{"kind", "currency"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_payments_total",
			Help: "Payments whose payment leg committed an outcome: settled, held, reversed or cancelled.",
		}, []string{"outcome"}),
		notifications: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_notification_attempts_total",
			Help: "Attempts to send a payee notification, by channel (SMS, PUSH) and outcome (sent, retrying, gave_up).",
		}, []string{"channel", "outcome"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_webhook_attempts_total",
			Help: "Attempts to deliver a webhook, by outcome (delivered, retrying, gave_up).",
		}, []string{"outcome"}),
		endpointsOff: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "disburse_webhook_endpoints_disabled_total",
			Help: "Webhook endpoints the service disabled after they kept failing.",
		}),
	}
	reg.MustRegister(m.money, m.payments, m.notifications, m.webhooks, m.endpointsOff)
	// Every series with a fixed label set shows from the start, at 0, so
	// that a rate over it has something to read before the first event.
	for _, k := range disburse.MoveKinds {
		m.payments.WithLabelValues(string(k))
	}
	for _, ch := range disburse.Channels() {
		for _, o := range notifications.AttemptOutcomes {
			m.notifications.WithLabelValues(string(ch), string(o))
		}
	}
	for _, o := range webhooks.AttemptOutcomes {
		m.webhooks.WithLabelValues(string(o))
	}
	return m
}

// Moved adds a committed transaction's movements: one add per kind and
// currency it moved, however many payments it held.
func (m *meter) Moved(moves []disburse.Movement) {
	for _, mv := range moves {
		if mv.Amount > 0 {
			m.money.WithLabelValues(string(mv.Kind), mv.Currency).Add(float64(mv.Amount))
		}
		if mv.Payments > 0 {
			m.payments.WithLabelValues(string(mv.Kind)).Add(float64(mv.Payments))
		}
	}
}

// NotificationAttempt counts one attempt to send a notification.
func (m *meter) NotificationAttempt(ch disburse.Channel, outcome notifications.AttemptOutcome) {
	m.notifications.WithLabelValues(string(ch), string(outcome)).Inc()
}

// WebhookAttempt counts one attempt to deliver a webhook.
func (m *meter) WebhookAttempt(outcome webhooks.AttemptOutcome) {
	m.webhooks.WithLabelValues(string(outcome)).Inc()
}

// EndpointDisabled counts an endpoint the service disabled.
func (m *meter) EndpointDisabled() { m.endpointsOff.Inc() }
