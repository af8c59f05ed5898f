package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/pprof"
	"strings"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/notifications"
	"github.com/disburse/disburse/notify"
	"github.com/disburse/disburse/sqlstore"
	"github.com/disburse/disburse/webhooks"
)

// env is one benchmark's world: the store, the service, the server on a
// loopback port and a client of it, all in this process.
type env struct {
	cfg      Config
	store    disburse.Store
	svc      *disburse.Service
	notes    *notifications.Service
	hooks    *webhooks.Service
	clock    *clock
	srv      *http.Server
	served   chan error
	client   *client
	profiled bool // the CPU profile has been taken
	// gateway receives the notifications and webhooks the bench delivers
	// (deliver.go); webhookSender sends to it.
	gateway       *gateway
	webhookSender *notify.Webhook
}

// clock is real time plus an offset the bench moves forward, so that
// reversal dates pass without waiting (the Service's Clock is injectable
// for exactly this).
type clock struct{ offset atomic.Int64 }

func (c *clock) now() time.Time          { return time.Now().Add(time.Duration(c.offset.Load())) }
func (c *clock) advance(d time.Duration) { c.offset.Add(int64(d)) }

// say reports progress, one line per step.
func (e *env) say(format string, a ...any) { fmt.Fprintf(e.cfg.Progress, "bench: "+format+"\n", a...) }

// engine is the database URL's scheme: sqlite or postgres.
func engineOf(url string) string { return strings.SplitN(url, ":", 2)[0] }

// start opens the store as serve does and serves the API on loopback.
// The background workers are not started: the bench runs the reversal
// sweep and delivery itself, to time them, and delivery would compete for
// the database in the middle of other measurements.
func start(ctx context.Context, cfg Config) (*env, error) {
	store, err := cfg.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	e := &env{cfg: cfg, store: store, clock: &clock{}, served: make(chan error, 1), gateway: newGateway(), webhookSender: notify.NewWebhook(true)}
	e.svc, e.hooks = newService(store, e.clock)
	e.notes = notifications.New(store.Notifications(), e.svc)
	admin := secrets.New("adm_")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		e.gateway.srv.Close()
		store.Close()
		return nil, err
	}
	e.srv = newServer(e.svc, e.hooks, store, admin, cfg.BulkConcurrency)
	go func() { e.served <- e.srv.Serve(ln) }()
	e.client = newClient("http://"+ln.Addr().String(), admin)
	return e, nil
}

// newService is a replica's service over store, on the bench's clock, with
// its webhook endpoints' service.
func newService(store *sqlstore.Store, c *clock) (*disburse.Service, *webhooks.Service) {
	svc := disburse.NewService(store)
	svc.Clock = c.now
	// The access log is formatted as serve formats it, then discarded: its
	// cost is counted, a terminal's is not.
	svc.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	hooks := webhooks.New(store.Webhooks(), svc)
	// The webhook endpoints are the local gateway: plain http on loopback.
	hooks.Config.AllowPrivate = true
	return svc, hooks
}

// newServer is the HTTP server of a replica's API.
func newServer(svc *disburse.Service, hooks *webhooks.Service, store *sqlstore.Store, admin string, bulk int) *http.Server {
	if bulk == 0 {
		bulk = httpapi.DefaultBulkConcurrency(store.HasOneWriter())
	}
	handler := httpapi.New(svc, httpapi.Config{AdminToken: admin, Log: svc.Log, Webhooks: hooks, IdempotencyStore: store.Idempotency(), BulkConcurrency: bulk,
		// A day: a token must outlive the longest run and the clock's jumps.
		AuthStore: store.Auth(), TokenTTL: 24 * time.Hour})
	return &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
}

func (e *env) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.srv.Shutdown(ctx); err != nil {
		e.say("shutdown: %v", err)
	}
	if err := <-e.served; !errors.Is(err, http.ErrServerClosed) {
		e.say("serve: %v", err)
	}
	e.client.close()
	e.gateway.srv.Close()
	e.store.Close()
}

// profile starts the CPU profile when phase is the one asked for and it
// has not been taken yet; the returned function stops it.
func (e *env) profile(phase string) (stop func(), err error) {
	if e.cfg.CPUProfile == "" || e.cfg.ProfilePhase != phase || e.profiled {
		return func() {}, nil
	}
	f, err := os.Create(e.cfg.CPUProfile)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	e.profiled = true
	return func() {
		pprof.StopCPUProfile()
		if err := f.Close(); err != nil {
			e.say("cpu profile: %v", err)
		}
	}, nil
}
