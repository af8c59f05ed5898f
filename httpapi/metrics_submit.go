package httpapi

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// submitMetrics observes each accepted submit: how many payments it moved
// and how long the use case took, apart from writing the answer.
type submitMetrics struct {
	payments prometheus.Histogram
	duration prometheus.Histogram
}

func newSubmitMetrics(reg prometheus.Registerer) submitMetrics {
	m := submitMetrics{
		payments: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "disburse_submit_payments",
			Help: "Payments in each batch submitted (POST /batches/{id}/submit that succeeded).",
			// From a handful to the million a batch may hold.
			Buckets: prometheus.ExponentialBuckets(1, 10, 7),
		}),
		duration: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "disburse_submit_duration_seconds",
			Help:    "Time the submit use case took for each batch submitted, the answer's writing excluded.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}),
	}
	reg.MustRegister(m.payments, m.duration)
	return m
}

// observeSubmit records a submit of payments that began at start; a nil
// Metrics records nothing.
func (m *Metrics) observeSubmit(payments int64, start time.Time) {
	if m == nil {
		return
	}
	m.submit.payments.Observe(float64(payments))
	m.submit.duration.Observe(time.Since(start).Seconds())
}
