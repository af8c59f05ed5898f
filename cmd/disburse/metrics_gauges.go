package main

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/worker"
)

// gaugeTimeout bounds the store's answer to a scrape.
const gaugeTimeout = 5 * time.Second

// gaugeSource is the metrics' port to the store: what the gauges read at
// each scrape. It is apart from disburse.Tx because no use case reads it;
// the SQL store implements it, and serve hands over the store it opened.
type gaugeSource interface {
	OperatorGauges(ctx context.Context, now time.Time) (sqlstore.OperatorGauges, error)
}

// storeGauges is a prometheus.Collector that reads the outboxes, tokens and
// keys from the store at each scrape (gaugeSource), so the figures are the
// database's, whichever replica is scraped, and nothing is kept in memory
// between scrapes. The only label is a status, from a fixed list.
type storeGauges struct {
	store         gaugeSource
	notifications *prometheus.Desc
	notifOldest   *prometheus.Desc
	deliveries    *prometheus.Desc
	delivOldest   *prometheus.Desc
	tokens        *prometheus.Desc
	keys          *prometheus.Desc
}

// The statuses each outbox's rows can be in; each is always shown, at 0
// when no row has it, so that an alert on one has a series to watch.
var (
	notificationStatuses = []string{"PENDING", "SENT", "FAILED"}
	deliveryStatuses     = []string{"PENDING", "DELIVERED", "FAILED"}
)

func newStoreGauges(store gaugeSource) *storeGauges {
	return &storeGauges{
		store: store,
		notifications: prometheus.NewDesc("disburse_notifications",
			"Payee notifications in the outbox, by status.", []string{"status"}, nil),
		notifOldest: prometheus.NewDesc("disburse_notifications_oldest_pending_age_seconds",
			"Age of the oldest PENDING payee notification; 0 when none is pending.", nil, nil),
		deliveries: prometheus.NewDesc("disburse_webhook_deliveries",
			"Webhook deliveries, by status.", []string{"status"}, nil),
		delivOldest: prometheus.NewDesc("disburse_webhook_deliveries_oldest_pending_age_seconds",
			"Age of the oldest PENDING webhook delivery; 0 when none is pending.", nil, nil),
		tokens: prometheus.NewDesc("disburse_tokens_live",
			"Access tokens that have not expired.", nil, nil),
		keys: prometheus.NewDesc("disburse_api_keys_active",
			"API keys not revoked.", nil, nil),
	}
}

// Describe sends every series' description.
func (g *storeGauges) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{g.notifications, g.notifOldest, g.deliveries, g.delivOldest, g.tokens, g.keys} {
		ch <- d
	}
}

// Collect reads the store once. When it cannot, it reports one invalid
// metric: the handler (promhttp.ContinueOnError) leaves these series out
// and serves the rest, so a slow database does not hide the pool series
// that would explain it.
func (g *storeGauges) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), gaugeTimeout)
	defer cancel()
	now := time.Now()
	got, err := g.store.OperatorGauges(ctx, now)
	if err != nil {
		ch <- prometheus.NewInvalidMetric(g.notifications, err)
		return
	}
	outbox(ch, g.notifications, g.notifOldest, notificationStatuses, got.Notifications, now)
	outbox(ch, g.deliveries, g.delivOldest, deliveryStatuses, got.WebhookDeliveries, now)
	ch <- prometheus.MustNewConstMetric(g.tokens, prometheus.GaugeValue, float64(got.LiveTokens))
	ch <- prometheus.MustNewConstMetric(g.keys, prometheus.GaugeValue, float64(got.ActiveAPIKeys))
}

func outbox(ch chan<- prometheus.Metric, count, oldest *prometheus.Desc, statuses []string, o sqlstore.Outbox, now time.Time) {
	for _, s := range statuses {
		ch <- prometheus.MustNewConstMetric(count, prometheus.GaugeValue, float64(o.ByStatus[s]), s)
	}
	age := 0.0
	if !o.OldestPending.IsZero() {
		age = max(0, now.Sub(o.OldestPending).Seconds())
	}
	ch <- prometheus.MustNewConstMetric(oldest, prometheus.GaugeValue, age)
}

// countSweeps wraps the reversal loop among loops so that each run, its
// failures and the payments it reversed are counted on reg.
func countSweeps(reg prometheus.Registerer, loops []worker.Loop) []worker.Loop {
	runs := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "disburse_reversal_sweep_runs_total", Help: "Runs of the reversal sweep on this replica."})
	failures := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "disburse_reversal_sweep_failures_total", Help: "Runs of the reversal sweep on this replica that ended in an error."})
	legs := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "disburse_reversal_legs_reversed_total", Help: "Payments whose legs the reversal sweep on this replica reversed."})
	reg.MustRegister(runs, failures, legs)
	out := make([]worker.Loop, len(loops))
	copy(out, loops)
	for i, l := range out {
		if l.Name != worker.ReversalName {
			continue
		}
		run := l.RunOnce
		out[i].RunOnce = func(ctx context.Context) (int, error) {
			n, err := run(ctx)
			runs.Inc()
			legs.Add(float64(n))
			if err != nil {
				failures.Inc()
			}
			return n, err
		}
	}
	return out
}
