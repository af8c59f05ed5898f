package main

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/disburse/disburse/sqlstore"
)

// writerWaits counts the writes that waited for SQLite's one writer, and
// their time: the lane that hands it out (sqlstore/writer_lane.go) queues
// them before the write pool, whose go_sql_* waits then stay at zero
// (docs/operations.md, "The rest").
func writerWaits(store *sqlstore.Store) prometheus.Collector {
	return writerWaitsCollector{store}
}

type writerWaitsCollector struct{ store *sqlstore.Store }

var (
	writerWaitsDesc = prometheus.NewDesc("disburse_writer_waits_total",
		"Writes that found SQLite's one writer taken and waited their turn.", nil, nil)
	writerWaitDesc = prometheus.NewDesc("disburse_writer_wait_seconds_total",
		"Time writes waited for SQLite's one writer, in all.", nil, nil)
)

func (c writerWaitsCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- writerWaitsDesc
	ch <- writerWaitDesc
}

func (c writerWaitsCollector) Collect(ch chan<- prometheus.Metric) {
	n, d := c.store.WriterWaits()
	ch <- prometheus.MustNewConstMetric(writerWaitsDesc, prometheus.CounterValue, float64(n))
	ch <- prometheus.MustNewConstMetric(writerWaitDesc, prometheus.CounterValue, d.Seconds())
}
