package httpapi

import (
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts and times the API's requests for Prometheus. Every label
// is bounded: the route is the route table's pattern (or "unmatched"), the
// method one of HTTP's own (else OTHER), the status its class (2xx...).
// No id, msisdn or other value a client chooses ever becomes a label.
type Metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	submit   submitMetrics // metrics_submit.go
}

// NewMetrics registers the request metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	labels := []string{"route", "method", "status"}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_http_requests_total",
			Help: "Requests answered, by route pattern, method and status class.",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "disburse_http_request_duration_seconds",
			Help: "Time from a request's headers to the end of its answer, by route pattern, method and status class.",
			// From a cached read to a million-payment submit.
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, labels),
	}
	reg.MustRegister(m.requests, m.duration)
	m.submit = newSubmitMetrics(reg)
	return m
}

// instrument wraps the route table, inside every other middleware, where
// ServeMux has set the request's Pattern by the time the handler returns.
func (m *Metrics) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		next.ServeHTTP(rec, r)
		route := "unmatched"
		if _, path, ok := strings.Cut(r.Pattern, " "); ok {
			route = path
		}
		labels := prometheus.Labels{"route": route, "method": boundedMethod(r.Method), "status": statusClass(rec.status())}
		m.requests.With(labels).Inc()
		m.duration.With(labels).Observe(time.Since(start).Seconds())
	})
}

func boundedMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}

func statusClass(status int) string {
	if status < 100 || status > 599 {
		return "other"
	}
	return string(rune('0'+status/100)) + "xx"
}
