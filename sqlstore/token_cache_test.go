package sqlstore_test

import (
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/apiversion"
	"github.com/disburse/disburse/internal/poll"
	"github.com/disburse/disburse/organisations"
	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlite"
	"github.com/disburse/disburse/sqlstore"
)

// TestTokenCache, on each engine, with two stores over one database as two
// replicas have: a revoked key's token stops at once on the store that
// revoked it, even when that store had kept it; on the other, on
// PostgreSQL as soon as it hears the revocation's announcement, its clock
// standing still (docs/api.md section 3), and on SQLite (one process a
// file: docs/operations.md) within sqlstore.TokenCacheTTL of its clock,
// not before; a wrong token is never kept; a new default version of the
// organisation reaches the kept token at once on the store that wrote it.
func TestTokenCache(t *testing.T) {
	open := map[string]func(t *testing.T) (*sqlstore.Store, *sqlstore.Store){
		"sqlite": func(t *testing.T) (*sqlstore.Store, *sqlstore.Store) {
			file := filepath.Join(t.TempDir(), "tokens.db")
			return mustOpen(t, func() (*sqlstore.Store, error) { return sqlite.Open(t.Context(), file) }),
				mustOpen(t, func() (*sqlstore.Store, error) { return sqlite.Open(t.Context(), file) })
		},
		"postgres": func(t *testing.T) (*sqlstore.Store, *sqlstore.Store) {
			url := pgtest.URL(t)
			return mustOpen(t, func() (*sqlstore.Store, error) { return postgres.Open(t.Context(), url) }),
				mustOpen(t, func() (*sqlstore.Store, error) { return postgres.Open(t.Context(), url) })
		},
	}
	for _, engine := range []string{"sqlite", "postgres"} {
		t.Run(engine, func(t *testing.T) {
			t.Parallel()
			revoker, replica := open[engine](t)
			testTokenCache(t, revoker, replica, engine == "postgres")
		})
	}
}

func mustOpen(t *testing.T, open func() (*sqlstore.Store, error)) *sqlstore.Store {
	t.Helper()
	s, err := open()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func testTokenCache(t *testing.T, revoker, replica *sqlstore.Store, announced bool) {
	ctx := t.Context()
	if announced {
		awaitTokenCache(t, replica, func(on bool, _ uint64) bool { return on })
	}
	var offset atomic.Int64 // the replica cache's clock, moved by the test
	sqlstore.SetTokenClock(replica, func() time.Time { return time.Now().Add(time.Duration(offset.Load())) })
	svc := disburse.NewService(revoker)
	org, _, err := organisations.Create(ctx, svc, organisations.NewOrganisation{Name: "Tokens"})
	if err != nil {
		t.Fatal(err)
	}
	here, there := auth.New(revoker.Auth(), svc), auth.New(replica.Auth(), disburse.NewService(replica))
	key, secret, err := here.CreateAPIKey(ctx, org.ID)
	if err != nil {
		t.Fatal(err)
	}
	token, _, err := here.IssueToken(ctx, secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []*auth.Service{here, there, here, there} { // read, then kept
		if c, err := s.Authenticate(ctx, token); err != nil || c.OrganisationID != org.ID {
			t.Fatalf("a live token: %+v, %v", c, err)
		}
	}
	if _, err := there.Authenticate(ctx, token+"x"); disburse.ErrorCode(err) != disburse.CodeUnauthorized {
		t.Fatalf("a wrong token: %v, want unauthorized", err)
	}
	// A new default version reaches the kept token at once on the store
	// that wrote it, and on PostgreSQL on the other once it hears it.
	_, before := sqlstore.TokenCacheState(replica)
	err = revoker.Write(ctx, func(tx disburse.Tx) error {
		o, err := tx.Organisation(ctx, org.ID)
		if err != nil {
			return err
		}
		o.APIVersion = apiversion.V20261201
		return tx.UpdateOrganisation(ctx, o)
	})
	if err != nil {
		t.Fatal(err)
	}
	if c, err := here.Authenticate(ctx, token); err != nil || c.APIVersion != apiversion.V20261201 {
		t.Errorf("after a new default version: %+v, %v", c, err)
	}
	if announced {
		awaitTokenCache(t, replica, func(_ bool, emptyings uint64) bool { return emptyings > before })
		if c, err := there.Authenticate(ctx, token); err != nil || c.APIVersion != apiversion.V20261201 {
			t.Errorf("the replica, once it heard the new version: %+v, %v", c, err)
		}
	}
	if !tokenKept(replica) {
		t.Fatal("the replica did not keep the token: the rest would prove nothing")
	}
	_, before = sqlstore.TokenCacheState(replica)
	if err := here.RevokeAPIKey(ctx, key.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := here.Authenticate(ctx, token); disburse.ErrorCode(err) != disburse.CodeUnauthorized {
		t.Errorf("the revoking store, at once: %v, want unauthorized", err)
	}
	if announced {
		// The replica's clock stands still: only the announcement can stop the token.
		awaitTokenCache(t, replica, func(_ bool, emptyings uint64) bool { return emptyings > before })
		if _, err := there.Authenticate(ctx, token); disburse.ErrorCode(err) != disburse.CodeUnauthorized {
			t.Errorf("the replica, once it heard the revocation: %v, want unauthorized", err)
		}
		return
	}
	if _, err := there.Authenticate(ctx, token); err != nil {
		t.Errorf("the replica within the TTL: %v, want its kept token", err)
	}
	offset.Store(int64(sqlstore.TokenCacheTTL))
	if _, err := there.Authenticate(ctx, token); disburse.ErrorCode(err) != disburse.CodeUnauthorized {
		t.Errorf("the replica after the TTL: %v, want unauthorized", err)
	}
}

// awaitTokenCache waits until s's token cache is as ready says, for at
// most poll.Until's ten seconds (an announcement's delivery, on loopback,
// takes milliseconds).
func awaitTokenCache(t *testing.T, s *sqlstore.Store, ready func(on bool, emptyings uint64) bool) {
	t.Helper()
	poll.Until(t, func() bool { return ready(sqlstore.TokenCacheState(s)) }, "the token cache in the state awaited")
}

// tokenKept says whether s's cache holds a token, read without a second
// read counted: the emptyings stand still and the cache is on.
func tokenKept(s *sqlstore.Store) bool {
	on, _ := sqlstore.TokenCacheState(s)
	return on && sqlstore.TokensKept(s) > 0
}

// TestTokenListenerComesBack: on PostgreSQL, a Store whose listening
// connection is terminated turns its cache off and listens again, and
// then hears announcements as before.
func TestTokenListenerComesBack(t *testing.T) {
	ctx := t.Context()
	url := pgtest.URL(t)
	s := mustOpen(t, func() (*sqlstore.Store, error) { return postgres.Open(ctx, url) })
	awaitTokenCache(t, s, func(on bool, _ uint64) bool { return on })
	_, before := sqlstore.TokenCacheState(s)
	err := s.ExecRaw(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'disburse tokens' AND datname = current_database()`)
	if err != nil {
		t.Fatal(err)
	}
	// Lost, then Listening: two emptyings, and on.
	awaitTokenCache(t, s, func(on bool, emptyings uint64) bool { return on && emptyings >= before+2 })
	org, _, err := organisations.Create(ctx, disburse.NewService(s), organisations.NewOrganisation{Name: "Back"})
	if err != nil {
		t.Fatal(err)
	}
	_, before = sqlstore.TokenCacheState(s)
	err = s.Write(ctx, func(tx disburse.Tx) error { return tx.UpdateOrganisation(ctx, org) })
	if err != nil {
		t.Fatal(err)
	}
	// The Store's own emptying after its commit, and the announcement heard.
	awaitTokenCache(t, s, func(_ bool, emptyings uint64) bool { return emptyings >= before+2 })
}
