package main

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/disburse/disburse/sqlstore"
)

// newRegistry holds what /metrics shows besides the API's requests: the
// build, the database pools, the outboxes, tokens and keys read from the
// store at each scrape (metrics_gauges.go), the Go runtime and the process.
func newRegistry(store *sqlstore.Store) *prometheus.Registry {
	reg := prometheus.NewRegistry()
	version, revision := buildVersion()
	build := prometheus.NewGauge(prometheus.GaugeOpts{
		Name:        "disburse_build_info",
		Help:        "Always 1; the labels say which build is running.",
		ConstLabels: prometheus.Labels{"version": version, "revision": revision, "goversion": runtime.Version()},
	})
	build.Set(1)
	reg.MustRegister(build, collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		newStoreGauges(store))
	for name, db := range store.Pools() {
		reg.MustRegister(collectors.NewDBStatsCollector(db, name))
	}
	if store.HasOneWriter() {
		reg.MustRegister(writerWaits(store))
	}
	return reg
}

// metricsServer serves reg at /metrics on its own address, apart from the
// API: what it shows is for the operator, not for organisations.
type metricsServer struct {
	srv    *http.Server
	served chan error
}

func startMetrics(ln net.Listener, reg *prometheus.Registry, log *slog.Logger) *metricsServer {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError}))
	m := &metricsServer{srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, served: make(chan error, 1)}
	go func() { m.served <- m.srv.Serve(ln) }()
	log.Info("metrics serving", "addr", ln.Addr().String())
	return m
}

func (m *metricsServer) stop(ctx context.Context) error {
	if m == nil {
		return nil
	}
	err := m.srv.Shutdown(ctx)
	if served := <-m.served; !errors.Is(served, http.ErrServerClosed) && err == nil {
		err = served
	}
	return err
}
