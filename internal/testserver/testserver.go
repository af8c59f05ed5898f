// Package testserver runs the real API over a store on 127.0.0.1 for the
// tests and examples of the client and the CLI: a funded organisation
// with an API key, and one registered member.
package testserver

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/httpapi"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// Member is the msisdn the server registers as a member at start.
const Member = "254712345678"

// Server is a running API.
type Server struct {
	URL    string // base URL, http://127.0.0.1:port
	APIKey string // the organisation's API key
	Svc    *disburse.Service
	Auth   *auth.Service // the organisation's keys and tokens
	http   *httptest.Server
	store  disburse.Store
	dir    string
}

// StartSQLite serves a fresh SQLite database in a temporary directory.
func StartSQLite(ctx context.Context) (*Server, error) {
	dir, err := os.MkdirTemp("", "disburse-testserver-")
	if err != nil {
		return nil, err
	}
	store, err := sqlite.Open(ctx, filepath.Join(dir, "test.db"))
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	s, err := Start(ctx, store)
	if err != nil {
		store.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	s.store, s.dir = store, dir
	return s, nil
}

// Start serves store (which the caller closes, unless StartSQLite opened
// it) with an organisation holding float of 100,000,000.00.
func Start(ctx context.Context, store *sqlstore.Store) (*Server, error) {
	svc := disburse.NewService(store)
	svc.Log = slog.New(slog.DiscardHandler)
	org, accounts, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Example Ltd"})
	if err != nil {
		return nil, err
	}
	if _, err := svc.Deposit(ctx, accounts[0].ID, "100000000.00", "opening float"); err != nil {
		return nil, err
	}
	keys := auth.New(store.Auth(), svc)
	_, key, err := keys.CreateAPIKey(ctx, org.ID)
	if err != nil {
		return nil, err
	}
	if _, _, err := svc.RegisterMember(ctx, disburse.Member{Msisdn: Member}); err != nil {
		return nil, err
	}
	h := httptest.NewServer(httpapi.New(svc, httpapi.Config{Log: slog.New(slog.DiscardHandler), IdempotencyStore: store.Idempotency(), AuthStore: store.Auth()}))
	return &Server{URL: h.URL, APIKey: key, Svc: svc, Auth: keys, http: h}, nil
}

// Close stops the server, and removes the database StartSQLite made.
func (s *Server) Close() {
	s.http.Close()
	if s.dir != "" {
		s.store.Close()
		os.RemoveAll(s.dir)
	}
}
