package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/disburse/disburse/internal/bulkgate"
)

// registerBulkGauges shows the bulk gate at each scrape: the adds and
// submits running and those waiting their turn (docs/operations.md, "Bulk
// work"). Waiting that stays above zero says the process's bulk work
// arrives faster than --bulk-concurrency serves it.
func registerBulkGauges(reg prometheus.Registerer, gate *bulkgate.Gate) {
	reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "disburse_bulk_requests_running",
			Help: "Bulk requests (adds, submits, approvals) admitted by the gate and not yet done.",
		}, func() float64 { return float64(gate.Held()) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "disburse_bulk_requests_waiting",
			Help: "Bulk requests waiting their turn at the gate.",
		}, func() float64 { return float64(gate.Waiting()) }),
	)
}
