// Package portal is the management portal: server-rendered pages at
// /portal/ for the service's operators and for the organisations that pay
// through it. Every page calls the same disburse.Service use cases as the
// HTTP API, so no business rule is written twice, and the portal's own
// (users, sessions, scoped views, uploads) in package backoffice;
// docs/portal.md describes it.
package portal

import (
	"context"
	"embed"
	"errors"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"strconv"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/bulkgate"
	"github.com/disburse/disburse/internal/ratelimit"
	"github.com/disburse/disburse/internal/reqroute"
	"github.com/disburse/disburse/operators"
	"github.com/disburse/disburse/portal/backoffice"
)

//go:embed templates/*.html
var templateFiles embed.FS

//go:embed static
var staticFiles embed.FS

// Prefix is where the portal is mounted.
const Prefix = "/portal/"

// iconPath is the portal's icon, which every page links; /favicon.ico,
// which browsers ask for by themselves, redirects to it.
const iconPath = Prefix + "static/favicon.svg"

// Config is what the portal needs besides the services.
type Config struct {
	// Log receives internal errors; nil means slog.Default().
	Log *slog.Logger
	// SignInLimits bound failed sign-ins; zero values take the defaults.
	SignInLimits Limits
	// Addresses is the client address's request budget, which every
	// sign-in spends before the password is checked; cmd/disburse shares
	// it with the API's address budget. Nil: no such budget.
	Addresses *ratelimit.Limiter
	// AuthStore issues and revokes the organisations' API keys
	// (sqlstore.Store.Auth). Required: New panics without it.
	AuthStore auth.Store
	// Operators reads the audit log for its page (operators.New on the
	// service's store); nil: that page answers 500.
	Operators *operators.Service
	// RateLimited, when not nil, is told each sign-in the limits refuse,
	// by the limit's name (SignInLimit), for the operator's metrics.
	RateLimited func(limit string)
	// BulkGate is the process's bulk gate, the one the API's adds,
	// submits and approvals pass (httpapi.Config.BulkGate): an upload's
	// check and add, a submit and an approval pass it too, so the portal's
	// bulk work takes its turn with the API's (docs/operations.md, "Bulk
	// work"). Nil: the portal's bulk work is not limited.
	BulkGate *bulkgate.Gate
	// Deadlines are the server's timeouts, counted again once the gate
	// admits a request (httpapi.Config.Timeouts).
	Deadlines bulkgate.Deadlines
}

// SignInLimit names the sign-in limits in the metrics
// (disburse_rate_limited_total{limit="portal-signin"}).
const SignInLimit = "portal-signin"

type portal struct {
	svc       *disburse.Service
	office    *backoffice.Service
	auth      *auth.Service
	operators *operators.Service
	log       *slog.Logger
	pages     map[string]*template.Template
	limiter   *signInLimiter
	// addresses is Config.Addresses.
	addresses *ratelimit.Limiter
	limited   func(limit string) // nil: not counted
	bulkGate  *bulkgate.Gate     // nil: bulk work is not limited
	deadlines bulkgate.Deadlines
}

// New returns the portal's handler, to be served at Prefix
// (httpapi.Config.Portal): svc for the payouts, office for the portal's
// users, sessions, views and uploads.
func New(svc *disburse.Service, office *backoffice.Service, cfg Config) http.Handler {
	if cfg.AuthStore == nil {
		panic("portal: Config.AuthStore is nil")
	}
	p := &portal{svc: svc, office: office, auth: auth.New(cfg.AuthStore, svc), operators: cfg.Operators, log: cfg.Log, pages: parsePages(),
		limiter: newSignInLimiter(cfg.SignInLimits), addresses: cfg.Addresses, limited: cfg.RateLimited,
		bulkGate: cfg.BulkGate, deadlines: cfg.Deadlines}
	if p.log == nil {
		p.log = slog.Default()
	}
	mux := http.NewServeMux()
	static, _ := fs.Sub(staticFiles, "static")
	mux.Handle("GET /portal/static/", http.StripPrefix("/portal/static/", http.FileServerFS(static)))
	mux.Handle("GET /favicon.ico", http.RedirectHandler(iconPath, http.StatusMovedPermanently))
	for _, rt := range p.routes() {
		mux.Handle(rt.method+" "+rt.path, p.guard(rt.access, p.handle(rt.handler)))
	}
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
	}))
	// The pattern goes to the request log and metrics around the portal
	// (httpapi.Config.Portal).
	return securityHeaders(cop.Handler(reqroute.Note(mux)))
}

// access says who may use a route: a column of the route table, so that
// each route says it where it is declared (docs/portal.md, "Roles").
type access string

const (
	public       access = "public"   // before any session: signing in, accepting an invitation
	operatorOnly access = "operator" // operators; everyone else gets 404

	// A signed-in user: an organisation user whose roles permit the
	// named one (holding it, or admin; every role reads), and operators,
	// whose handlers say what they may do (operators look but do not pay).
	viewer   = access(auth.RoleViewer)
	maker    = access(auth.RoleMaker)
	approver = access(auth.RoleApprover) // approving or rejecting a submit
	orgAdmin = access(auth.RoleAdmin)
)

// guard puts h behind a's checks: a session, then the operator's or the
// role's, which answers 403 (before anything is read or changed). A
// route whose access is none of the above panics here, at start: it
// must not be served.
func (p *portal) guard(a access, h http.Handler) http.Handler {
	switch a {
	case public:
		return h
	case operatorOnly:
		return p.signedIn(p.operator(h))
	}
	role, ok := auth.ParseRole(string(a))
	if !ok {
		panic("portal: a route's access is " + strconv.Quote(string(a)) + ": public, operator or a role")
	}
	return p.signedIn(p.permits(role, h))
}

type route struct {
	method, path string
	access       access
	handler      func(w http.ResponseWriter, r *http.Request) error
}

// routes is the portal's one route table. tenant_test.go walks every
// route here as the wrong organisation, roles_test.go as each role.
func (p *portal) routes() []route {
	return []route{
		{"GET", "/portal/{$}", viewer, p.home},
		{"GET", "/portal/signin", public, p.signInPage},
		{"POST", "/portal/signin", public, p.signIn},
		{"POST", "/portal/signout", viewer, p.signOut},
		{"GET", "/portal/invitation", public, p.invitationPage},
		{"POST", "/portal/invitation", public, p.acceptInvitation},

		{"GET", "/portal/organisations", operatorOnly, p.organisations},
		{"POST", "/portal/organisations", operatorOnly, p.createOrganisation},
		{"GET", "/portal/organisations/{id}", viewer, p.organisation},
		{"POST", "/portal/organisations/{id}/settings", operatorOnly, p.updateSettings},
		{"POST", "/portal/organisations/{id}/approvalThreshold", orgAdmin, p.updateApprovalThreshold},
		{"POST", "/portal/organisations/{id}/accounts", operatorOnly, p.createAccount},
		{"POST", "/portal/organisations/{id}/keys", orgAdmin, p.createKey},
		{"POST", "/portal/keys/{id}/revoke", orgAdmin, p.revokeKey},
		{"POST", "/portal/accounts/{id}/deposits", operatorOnly, p.deposit},

		{"GET", "/portal/users", orgAdmin, p.users},
		{"POST", "/portal/users/invitations", orgAdmin, p.invite},
		{"POST", "/portal/invitations/{id}/withdraw", orgAdmin, p.withdrawInvitation},
		{"POST", "/portal/users/{id}/roles", orgAdmin, p.setRoles},
		{"POST", "/portal/users/{id}/remove", orgAdmin, p.removeUser},

		{"GET", "/portal/members", operatorOnly, p.members},
		{"POST", "/portal/members", operatorOnly, p.registerMember},
		{"GET", "/portal/notifications", operatorOnly, p.notifications},
		{"GET", "/portal/ledger", operatorOnly, p.ledger},
		{"GET", "/portal/audit", viewer, p.auditLog},

		{"GET", "/portal/batches", viewer, p.batches},
		{"POST", "/portal/batches", maker, p.createBatch},
		{"GET", "/portal/batches/{id}", viewer, p.batch},
		{"GET", "/portal/batches/{id}/payments.csv", viewer, p.exportPayments},
		{"POST", "/portal/batches/{id}/upload", maker, p.upload},
		{"GET", "/portal/uploads/{id}", viewer, p.uploadStatus},
		{"GET", "/portal/batches/{id}/submit", maker, p.confirmSubmit},
		{"POST", "/portal/batches/{id}/submit", maker, p.submit},
		{"GET", "/portal/batches/{id}/cancel", maker, p.confirmCancel},
		{"POST", "/portal/batches/{id}/cancel", maker, p.cancel},
		// Approvals (docs/portal.md): approve and reject are the routes an
		// approver's role guards; the requester is refused in the domain.
		{"GET", "/portal/approvals", viewer, p.approvals},
		{"GET", "/portal/approvals/{id}", viewer, p.approval},
		{"POST", "/portal/approvals/{id}/approve", approver, p.approve},
		{"POST", "/portal/approvals/{id}/reject", approver, p.reject},
		{"GET", "/portal/payments/{id}", viewer, p.payment},
		{"POST", "/portal/payments/{id}/delete", maker, p.deletePayment},
	}
}

// handle adapts a handler that returns an error: not found is the 404
// page, anything unexpected a 500 page that shows no internals.
func (p *portal) handle(h func(w http.ResponseWriter, r *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := h(w, r)
		if err == nil {
			return
		}
		var e *disburse.Error
		switch {
		case errors.Is(r.Context().Err(), context.Canceled):
			// The client hung up: no one reads the page, and it is not
			// the service's failure (docs/operations.md, "Logs").
			p.log.Info("portal: client closed the request", "route", r.Pattern, "err", err)
			w.WriteHeader(clientClosed)
		case disburse.ErrorCode(err) == disburse.CodeNotFound:
			p.render(w, r, http.StatusNotFound, "message", page{Title: "Not found", Message: "There is nothing here, or it is not yours to see."})
		case errors.As(err, &e) && e.Code == disburse.CodeForbidden:
			p.render(w, r, http.StatusForbidden, "message", page{Title: "Not allowed",
				Message: "Your roles do not allow this. Ask your organisation's admin. (" + e.Message + ")"})
		case disburse.ErrorCode(err) == disburse.CodeUnavailable:
			p.render(w, r, http.StatusServiceUnavailable, "message", page{Title: "Unavailable", Message: "The database cannot be reached. Try again shortly."})
		case errors.As(err, &e) && e.Code != disburse.CodeInternal:
			// A domain failure no form shows beside a field: say it plainly.
			p.render(w, r, http.StatusUnprocessableEntity, "message", page{Title: "Not done", Message: e.Message, Errors: fieldMessages(e)})
		default:
			// The route's pattern, not the path, which can hold an msisdn.
			p.log.Error("portal: internal error", "route", r.Pattern, "err", err)
			p.render(w, r, http.StatusInternalServerError, "message", page{Title: "Something went wrong", Message: "The error was logged. Try again, or tell the operator."})
		}
	})
}

// fieldMessages lists a validation error's failures as text.
func fieldMessages(e *disburse.Error) []string {
	var out []string
	for _, f := range e.Fields {
		out = append(out, f.FieldName+": "+f.ErrorMessage)
	}
	return out
}

// securityHeaders sets a strict Content-Security-Policy (scripts and
// styles only from the portal's own static files, no inline script) and
// the headers that keep pages out of frames and caches.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "same-origin")
		if !strings.HasPrefix(r.URL.Path, "/portal/static/") && r.URL.Path != "/favicon.ico" {
			h.Set("Cache-Control", "no-store")
		}
		next.ServeHTTP(w, r)
	})
}

// clientClosed is the status of a request whose client hung up first, as
// the API's (httpapi.StatusClientClosed).
const clientClosed = 499
