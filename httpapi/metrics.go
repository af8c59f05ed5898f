package httpapi

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Metrics counts and times the requests of the API and of the portal
// beside it for Prometheus (docs/operations.md, "Metrics"). Every label is
// bounded: the route is a route table's pattern (or "unmatched"), the
// method one of HTTP's own (else OTHER), the code the status sent (499
// when the client hung up first). No id, msisdn or other value a client
// chooses ever becomes a label.
type Metrics struct {
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	rateLimited *prometheus.CounterVec
	submit      submitMetrics // metrics_submit.go
}

// NewMetrics registers the request metrics on reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	labels := []string{"route", "method", "code"}
	m := &Metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_http_requests_total",
			Help: "Requests answered, by route pattern, method and status code (499: the client hung up first).",
		}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "disburse_http_request_duration_seconds",
			Help: "Time from a request's headers to the end of its answer, by route pattern, method and status code.",
			// From a cached read to a million-payment submit.
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, labels),
		rateLimited: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "disburse_rate_limited_total",
			Help: "Requests refused for a spent budget, by the limit spent (docs/operations.md, \"Rate limits\").",
		}, []string{"limit"}),
	}
	reg.MustRegister(m.requests, m.duration, m.rateLimited)
	// Each of the API's limits shows from the start, at 0, so that a rate
	// over it has something to read before the first refusal.
	for _, limit := range []string{limitOrganisation, limitOperator, limitAddress, limitMemberExists} {
		m.rateLimited.WithLabelValues(limit)
	}
	m.submit = newSubmitMetrics(reg)
	return m
}

// observe counts one request answered with code after it began at start;
// a nil Metrics counts nothing.
func (m *Metrics) observe(route, method string, code int, start time.Time) {
	if m == nil {
		return
	}
	labels := prometheus.Labels{"route": route, "method": boundedMethod(method), "code": boundedCode(code)}
	m.requests.With(labels).Inc()
	m.duration.With(labels).Observe(time.Since(start).Seconds())
}

// RateLimited counts one request refused by the named limit: a
// RateLimits policy's Name, or the portal's sign-in limit. A nil Metrics
// counts nothing.
func (m *Metrics) RateLimited(limit string) {
	if m == nil {
		return
	}
	m.rateLimited.WithLabelValues(limit).Inc()
}

func boundedMethod(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodOptions:
		return method
	}
	return "OTHER"
}

// boundedCode is the status code as the label shows it; the server writes
// only 100 to 999.
func boundedCode(code int) string {
	if code < 100 || code > 999 {
		return "other"
	}
	return strconv.Itoa(code)
}
