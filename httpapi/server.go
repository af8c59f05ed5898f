// Package httpapi is the HTTP adapter of Disburse: the route table, the
// middleware around it, the handlers and the one table from error code to
// status. Every rule lives in the domain (package disburse); a handler
// decodes, calls one Service method and writes the answer. openapi.yaml
// documents every route, its answers and the conventions they share.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/internal/reqroute"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/webhooks"
)

// DefaultMaxBodyBytes is docs/api.md section 4.1's request body limit, used when Config sets none.
const DefaultMaxBodyBytes = 64 << 20

// Config is what the adapter needs besides the service.
type Config struct {
	// AdminToken is the operator API's bootstrap token, beside the named
	// operator tokens of OperatorStore; empty: no bootstrap token.
	AdminToken string
	// OperatorStore keeps the operator tokens and serves the operator's
	// lists and the audit log (sqlstore.Store); nil: only AdminToken signs
	// in, and those lists answer 500.
	OperatorStore operators.Store
	// MaxBodyBytes caps a request body (413 past it); 0 means 64 MiB.
	MaxBodyBytes int64
	// Log receives the access log and internal errors; nil means slog.Default().
	Log *slog.Logger
	// SpoolDir is where a submit keeps its answer while it writes the
	// payments (a file as large as the answer, unlinked at once); empty
	// means os.TempDir(). Where no file can be made, the answer is read
	// back from the store instead.
	SpoolDir string
	// IdempotencyLease is the longest a request of this process may hold
	// its Idempotency-Key (its claim renewed while it runs); 0 means
	// idempotency.DefaultLease.
	IdempotencyLease time.Duration
	// AuthStore keeps the API keys and access tokens, on the database of
	// the service's store (sqlstore.Store.Auth). Required: every
	// organisation route authenticates through it, so New panics without it.
	AuthStore auth.Store
	// TokenTTL is how long an access token lives; 0 means
	// auth.DefaultTokenTTL.
	TokenTTL time.Duration
	// IdempotencyStore keeps the Idempotency-Keys, on the database of the
	// service's store (sqlstore.Store.Idempotency). Required: every POST
	// but getToken takes a key, so New panics without it.
	IdempotencyStore idempotency.Store
	// RateLimits are the request budgets (ratelimit.go); the zero value
	// means no limits at all.
	RateLimits RateLimits
	// Addresses, when set, is the address budget's limiter, shared with
	// the portal's sign-in so that one client address has one budget; nil
	// makes one from RateLimits.Address.
	Addresses *ratelimit.Limiter
	// Metrics counts and times requests (metrics.go); nil: none.
	Metrics *Metrics
	// Portal, when not nil, is served at PortalPrefix (and /portal
	// redirects there; /favicon.ico is the portal's too), beside the API:
	// its requests get a request id and go through the same request log
	// and metrics, by the portal's route patterns (which its router notes
	// with internal/reqroute), but none of the API's rate limits, body
	// limit or problem answers.
	Portal http.Handler
	// Webhooks serves the /webhooks routes and the operator's
	// (webhooks.go). Nil serves no webhooks: those routes then answer
	// 500, as a handler that panics does.
	Webhooks *webhooks.Service
	// BulkConcurrency is how many bulk requests (adds, submits,
	// approvals) this process serves at once, the rest waiting their turn
	// (bulk.go); 0 means DefaultBulkConcurrency(false), a negative value
	// no limit.
	BulkConcurrency int
	// BulkGate, when set, is the gate itself (a test's, to hold it) and
	// BulkConcurrency is not read.
	BulkGate *bulkgate.Gate
	// Timeouts are the HTTP server's, restarted when a bulk request is
	// admitted (bulk.go); zero: not restarted.
	Timeouts ServerTimeouts
}

type server struct {
	svc       *disburse.Service
	operators *operators.Service
	auth      *auth.Service
	maxBody   int64
	log       *slog.Logger
	spoolDir  string

	idempotencyLease time.Duration
	keys             *idempotency.Keys
	limits           *limiters
	metrics          *Metrics // nil: none
	mux              *http.ServeMux
	access           map[string]access // each route's, by its pattern (access.go)
	hooks            *webhooks.Service
	bulkGate         *bulkgate.Gate // nil: bulk requests are not limited
	timeouts         ServerTimeouts
}

// New returns the API's handler: the route table on a ServeMux, inside the
// middleware listed here outermost first.
func New(svc *disburse.Service, cfg Config) http.Handler {
	if cfg.IdempotencyStore == nil {
		panic("httpapi: Config.IdempotencyStore is nil")
	}
	if cfg.AuthStore == nil {
		panic("httpapi: Config.AuthStore is nil")
	}
	s := &server{svc: svc, operators: operators.New(cfg.OperatorStore, cfg.AdminToken).WithClock(svc.Clock), maxBody: cfg.MaxBodyBytes, log: cfg.Log, spoolDir: cfg.SpoolDir,
		idempotencyLease: cfg.IdempotencyLease, keys: idempotency.New(svc, cfg.IdempotencyStore),
		limits: newLimiters(cfg.RateLimits, cfg.Addresses), metrics: cfg.Metrics, hooks: cfg.Webhooks,
		bulkGate: newBulkGate(cfg), timeouts: cfg.Timeouts}
	s.auth = auth.New(cfg.AuthStore, svc)
	if cfg.TokenTTL > 0 {
		s.auth.TokenTTL = cfg.TokenTTL
	}
	if s.maxBody <= 0 {
		s.maxBody = DefaultMaxBodyBytes
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.mux = http.NewServeMux()
	routes := s.routes()
	s.access = routeAccess(routes)
	for _, rt := range routes {
		s.mux.Handle(rt.method+" "+rt.path, s.handle(rt.handler))
	}
	api := chain(s.problemsForUnrouted(s.mux),
		s.noteRoute,     // first, so that a request refused by what follows has its route
		s.recoverPanics, // inside the log, outside everything that might panic
		s.withVersion,   // before anything is read: an unknown version changes nothing
		s.rateLimit,     // before the body is read or the database asked
		s.limitBody,
	)
	return chain(withPortal(api, cfg.Portal),
		withRequestID, // first, so every response and log line has the id
		s.accessLog,   // sees the final status, a recovered panic's 500 included; counts it too
	)
}

// PortalPrefix is where Config.Portal is served.
const PortalPrefix = "/portal/"

// withPortal serves portal at PortalPrefix and the rest with api; a nil
// portal leaves api alone.
func withPortal(api, portal http.Handler) http.Handler {
	if portal == nil {
		return api
	}
	mux := http.NewServeMux()
	mux.Handle(PortalPrefix, portal)
	mux.Handle(strings.TrimSuffix(PortalPrefix, "/"), http.RedirectHandler(PortalPrefix, http.StatusMovedPermanently))
	mux.Handle("GET /favicon.ico", portal) // browsers ask for it at the root; the portal's icon answers
	mux.Handle("/", api)
	return mux
}

// chain wraps h in mws, the first outermost.
func chain(h http.Handler, mws ...middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		h = mws[i](h)
	}
	return h
}

// handlerFunc is a handler that returns its failure; handle writes it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// orgHandlerFunc is a handler of the organisation API; orgID is the
// authenticated organisation, passed explicitly (see auth.go).
type orgHandlerFunc func(w http.ResponseWriter, r *http.Request, orgID string) error

// handle adapts a handlerFunc: its error, if any, goes to the one error writer.
func (s *server) handle(h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := h(w, r); err != nil {
			s.writeError(w, r, err)
		}
	})
}

// route is one line of the route table. The table is a slice so that a
// test can check every route against openapi.yaml, and walk each with
// every role.
type route struct {
	method, path string
	access       access // who may call it (access.go)
	handler      handlerFunc
}

// routes is the one route table: docs/api.md sections 3, 4, 5, 7 and 9.
// The access column says who may call each route (docs/api.md section
// 3.1): s.org and s.admin check the credentials (auth.go), s.org the
// role the column names too. orgIdempotent and adminIdempotent mark the
// POSTs that take an Idempotency-Key (idempotency.go), whose handlers
// are therefore method expressions: they run on a copy of the server
// that carries the key.
func (s *server) routes() []route {
	return []route{
		{"GET", "/healthz", anyone, s.healthz},
		{"GET", "/readyz", anyone, s.readyz},
		{"GET", "/openapi.yaml", anyone, serveOpenAPI},
		{"POST", "/authentication/getToken", anyone, s.getToken},

		{"POST", "/batches", maker, s.org(s.orgIdempotent(replayKept, (*server).createBatch))},
		{"GET", "/batches", viewer, s.org(s.listBatches)},
		// More specific than /batches/{id}, so ServeMux prefers it.
		{"GET", "/batches/statusCodes", viewer, s.org(batchStatusCodes)},
		{"GET", "/batches/{id}", viewer, s.getAuthenticatedBatch}, // s.org's check, in the read (batch_read.go)
		{"PUT", "/batches/{id}", maker, s.org(s.updateBatch)},
		{"GET", "/batches/{id}/payments", viewer, s.org(s.listPayments)},
		// payments.csv is a segment of its own: no pattern above takes it.
		{"GET", "/batches/{id}/payments.csv", viewer, s.org(s.exportPayments)},
		{"POST", "/batches/{id}/payments", maker, s.org(s.bulk(s.orgIdempotent(replayKept, (*server).addPayments)))},
		{"POST", "/batches/{id}/submit", maker, s.org(s.bulk(s.orgIdempotent(replaySubmit, (*server).submitBatch)))},
		{"POST", "/batches/{id}/cancel", maker, s.org(s.orgIdempotent(replayKept, (*server).cancelBatch))},
		{"GET", "/payments/statusCodes", viewer, s.org(paymentStatusCodes)},
		{"GET", "/payments/{id}", viewer, s.org(s.getPayment)},
		{"DELETE", "/payments/{id}", maker, s.org(s.deletePayment)},
		{"GET", "/members/{msisdn}/exists", viewer, s.org(s.memberExists)},
		{"GET", "/accounts", viewer, s.org(s.listAccounts)},

		{"GET", "/audit", viewer, s.org(s.orgAudit)},

		// Approvals (docs/api.md section 4.3). approve and reject are the
		// routes an approver's role guards; the requester of an approval
		// is refused in the domain, whatever their role.
		{"GET", "/approvals", viewer, s.org(s.listApprovals)},
		{"GET", "/approvals/{id}", viewer, s.org(s.getApproval)},
		{"POST", "/approvals/{id}/approve", approver, s.org(s.bulk(s.orgIdempotent(replayKept, (*server).approve)))},
		{"POST", "/approvals/{id}/reject", approver, s.org(s.orgIdempotent(replayKept, (*server).reject))},

		// A sandbox organisation's own calls (sandbox.go, docs/sandbox.md):
		// a live organisation's token finds none of them.
		{"POST", "/sandbox/members", maker, s.org(s.orgIdempotent(replayKept, (*server).registerSandboxMember))},
		{"POST", "/sandbox/batches/{id}/expire", maker, s.org(s.orgIdempotent(replayKept, (*server).expireSandboxBatch))},
		{"POST", "/sandbox/deposits", orgAdmin, s.org(s.orgIdempotent(replayKept, (*server).sandboxDeposit))},

		{"POST", "/admin/organisations", operator, s.admin(s.adminIdempotent((*server).createOrganisation))},
		{"GET", "/admin/organisations", operator, s.admin(s.listOrganisations)},
		{"GET", "/admin/organisations/{id}/apiKeys", operator, s.admin(s.listAPIKeys)},
		{"GET", "/admin/audit", operator, s.admin(s.adminAudit)},
		{"POST", "/webhooks", orgAdmin, s.org(s.orgIdempotent(replayKept, (*server).createWebhook))},
		{"GET", "/webhooks", orgAdmin, s.org(s.listWebhooks)},
		{"GET", "/webhooks/{id}", orgAdmin, s.org(s.getWebhook)},
		{"PUT", "/webhooks/{id}", orgAdmin, s.org(s.updateWebhook)},
		{"DELETE", "/webhooks/{id}", orgAdmin, s.org(s.deleteWebhook)},
		{"POST", "/webhooks/{id}/rotateSecret", orgAdmin, s.org(s.orgIdempotent(replayKept, (*server).rotateWebhookSecret))},
		{"GET", "/webhooks/{id}/deliveries", orgAdmin, s.org(s.listWebhookDeliveries)},
		{"POST", "/webhooks/{id}/deliveries/{deliveryId}/retry", orgAdmin, s.org(s.orgIdempotent(replayKept, (*server).retryWebhookDelivery))},
		{"GET", "/admin/webhooks", operator, s.admin(s.adminWebhooks)},
		{"POST", "/admin/webhooks/{id}/disable", operator, s.admin(s.adminIdempotent((*server).adminDisableWebhook))},

		{"GET", "/admin/organisations/{id}", operator, s.admin(s.getOrganisation)},
		{"PUT", "/admin/organisations/{id}/settings", operator, s.admin(s.updateSettings)},
		{"POST", "/admin/organisations/{id}/accounts", operator, s.admin(s.adminIdempotent((*server).createAccount))},
		{"POST", "/admin/organisations/{id}/apiKeys", operator, s.admin(s.adminIdempotent((*server).createAPIKey))},
		{"DELETE", "/admin/apiKeys/{id}", operator, s.admin(s.revokeAPIKey)},
		{"POST", "/admin/accounts/{id}/deposits", operator, s.admin(s.adminIdempotent((*server).deposit))},
		{"POST", "/admin/members", operator, s.admin(s.adminIdempotent((*server).registerMember))},
		{"GET", "/admin/members/{msisdn}/statement", operator, s.admin(s.statement)},
		{"GET", "/admin/notifications", operator, s.admin(s.notifications)},
		{"GET", "/admin/ledger/check", operator, s.admin(s.checkLedger)},
	}
}

// noteRoute notes the pattern of the route that will serve r for the
// request log and the metrics (internal/reqroute).
func (s *server) noteRoute(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, pattern := s.mux.Handler(r)
		reqroute.Set(r, pattern)
		next.ServeHTTP(w, r)
	})
}

// problemsForUnrouted answers an unknown path (404) or method (405) with a
// problem like every other error, where ServeMux would write plain text.
func (s *server) problemsForUnrouted(mux *http.ServeMux) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" { // a route, or ServeMux's redirect to a clean path
			mux.ServeHTTP(w, r)
			return
		}
		// ServeMux's fallback tells 404 from 405 and lists the allowed methods.
		probe := &headerProbe{header: http.Header{}}
		h.ServeHTTP(probe, r)
		if probe.code == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", probe.header.Get("Allow"))
			s.writeError(w, r, disburse.Errorf(codeMethodNotAllowed, "%s is not allowed on %s", r.Method, r.URL.Path))
			return
		}
		s.writeError(w, r, disburse.Errorf(disburse.CodeNotFound, "no such resource: %s", r.URL.Path))
	})
}

// headerProbe records what a handler would answer, and discards the body.
type headerProbe struct {
	header http.Header
	code   int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) WriteHeader(code int)        { p.code = code }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }

// healthTimeout bounds the database's answer to a health check.
const healthTimeout = time.Second

// healthz answers 200 once the database answers (docs/api.md section 9).
func (s *server) healthz(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkDatabase(r, "health check: the database does not answer", s.svc.Store.Ping); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, healthJSON{Status: "ok"})
}

// checkDatabase runs check with healthTimeout, and turns its failure into
// unavailable, with what as the log message and the problem's detail. A load balancer waits for the answer:
// one second is plenty for a database that answers, and one that does not
// is unavailable.
func (s *server) checkDatabase(r *http.Request, what string, check func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(r.Context(), healthTimeout)
	defer cancel()
	if err := check(ctx); err != nil {
		if r.Context().Err() == nil { // else the client hung up: writeError says so
			s.log.WarnContext(r.Context(), what, "err", err)
		}
		_, detail, _ := strings.Cut(what, ": ")
		return disburse.Errorf(disburse.CodeUnavailable, "%s", detail)
	}
	return nil
}

// readyz answers 200 when the database answers and its migrations are the
// ones this build embeds: the check a load balancer sends traffic by.
// healthz only says the process and its database are alive, so that an
// orchestrator does not restart a replica waiting for a migration.
func (s *server) readyz(w http.ResponseWriter, r *http.Request) error {
	ready := func(ctx context.Context) error {
		if err := s.svc.Store.Ping(ctx); err != nil {
			return err
		}
		return s.svc.Store.SchemaCurrent(ctx)
	}
	if err := s.checkDatabase(r, "readiness check: the database does not answer, or its schema is not the one this build expects", ready); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, healthJSON{Status: "ok"})
}
