package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
)

// AuthStore is a store that also hands over package auth's port, as
// sqlstore.Store does: the suite makes the organisation through the one
// and its keys and tokens through the other.
type AuthStore interface {
	disburse.Store
	Auth() auth.Store
}

// RunAuth runs the suite of auth.Tx, each test in parallel on a store of
// its own. open returns a new, empty, migrated store and arranges its
// closing with t.Cleanup.
func RunAuth(t *testing.T, open func(t *testing.T) AuthStore) {
	tests := []struct {
		name string
		run  func(*testing.T, AuthStore)
	}{
		{"APIKey", testAPIKey},
		{"Token", testToken},
		{"DeleteDeadTokens", testDeleteDeadTokens},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

func testAPIKey(t *testing.T, s AuthStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	k := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("dak_one"), Prefix: "dak_on", Role: auth.RoleMaker,
		CreatedAt: t0, Secret: "dak_one"}
	writeIn(t, s.Auth().Write, func(tx auth.Tx) error { return tx.InsertAPIKey(ctx, k) })
	k.Secret = "" // never kept: only its hash is
	same(t, "APIKey", k, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.APIKey, error) { return tx.APIKey(ctx, k.ID) }))
	same(t, "APIKeyByHash", k, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.APIKey, error) { return tx.APIKeyByHash(ctx, k.Hash) }))

	twin := k
	twin.ID = disburse.NewID()
	if err := s.Auth().Write(ctx, func(tx auth.Tx) error { return tx.InsertAPIKey(ctx, twin) }); err == nil {
		t.Error("a second key with the same hash was accepted")
	}

	writeIn(t, s.Auth().Write, func(tx auth.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(time.Hour)) })
	writeIn(t, s.Auth().Write, func(tx auth.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(2*time.Hour)) })
	k.RevokedAt = at(time.Hour) // the first revocation stands
	same(t, "revoked APIKey", k, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.APIKey, error) { return tx.APIKey(ctx, k.ID) }))

	missing := disburse.NewID()
	notFoundIn(t, s.Auth().Write, "APIKey", func(tx auth.Tx) error { _, err := tx.APIKey(ctx, missing); return err })
	notFoundIn(t, s.Auth().Write, "APIKeyByHash", func(tx auth.Tx) error { _, err := tx.APIKeyByHash(ctx, "nope"); return err })
	if err := s.Auth().Write(ctx, func(tx auth.Tx) error { return tx.RevokeAPIKey(ctx, missing, t0) }); err == nil {
		t.Error("RevokeAPIKey of a missing key: no error")
	}
}

func testToken(t *testing.T, s AuthStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	k := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("dak_two"), Prefix: "dak_tw", Role: auth.RoleApprover,
		CreatedAt: t0}
	tok := auth.Token{Hash: secrets.Hash("dat_one"), APIKeyID: k.ID, OrganisationID: w.org.ID, ExpiresAt: at(time.Hour), CreatedAt: t0}
	writeIn(t, s.Auth().Write, func(tx auth.Tx) error {
		if err := tx.InsertAPIKey(ctx, k); err != nil {
			return err
		}
		return tx.InsertToken(ctx, tok)
	})
	tok.KeyPrefix = k.Prefix // read with the token, the audit log's name of its key
	tok.KeyRole = k.Role     // and the role the token acts with
	same(t, "TokenByHash", tok, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	writeIn(t, s.Auth().Write, func(tx auth.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(time.Minute)) })
	tok.KeyRevokedAt = at(time.Minute)
	same(t, "TokenByHash of a revoked key", tok, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	notFoundIn(t, s.Auth().Write, "TokenByHash", func(tx auth.Tx) error { _, err := tx.TokenByHash(ctx, "nope"); return err })
}

// testDeleteDeadTokens: expired tokens and a revoked key's tokens go, in
// batches of at most limit; live tokens of a live key stay.
func testDeleteDeadTokens(t *testing.T, s AuthStore) {
	ctx := t.Context()
	w := newWorld(t, s)
	live := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("dak_live"), Prefix: "dak_li", Role: auth.RoleViewer, CreatedAt: t0}
	revoked := auth.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: secrets.Hash("dak_gone"), Prefix: "dak_go", Role: auth.RoleViewer, CreatedAt: t0}
	token := func(key auth.APIKey, name string, expires time.Duration) auth.Token {
		return auth.Token{Hash: secrets.Hash(name), APIKeyID: key.ID, OrganisationID: w.org.ID, ExpiresAt: at(expires), CreatedAt: t0,
			KeyPrefix: key.Prefix, KeyRole: key.Role}
	}
	keep := token(live, "dat_keep", 2*time.Hour)
	tokens := []auth.Token{
		keep,
		token(live, "dat_expired1", time.Minute),
		token(live, "dat_expired2", time.Hour), // expires exactly now: dead
		token(revoked, "dat_revoked1", 2*time.Hour),
		token(revoked, "dat_revoked2", 2*time.Hour),
	}
	writeIn(t, s.Auth().Write, func(tx auth.Tx) error {
		for _, k := range []auth.APIKey{live, revoked} {
			if err := tx.InsertAPIKey(ctx, k); err != nil {
				return err
			}
		}
		for _, tk := range tokens {
			if err := tx.InsertToken(ctx, tk); err != nil {
				return err
			}
		}
		return tx.RevokeAPIKey(ctx, revoked.ID, t0)
	})
	now := at(time.Hour)
	deleted := 0
	for range 5 { // 4 dead tokens, at most 3 at a time: two rounds, then none
		var n int
		writeIn(t, s.Auth().Write, func(tx auth.Tx) (err error) { n, err = tx.DeleteDeadTokens(ctx, now, 3); return err })
		if n > 3 {
			t.Fatalf("DeleteDeadTokens deleted %d, past its limit of 3", n)
		}
		deleted += n
	}
	if deleted != 4 {
		t.Errorf("deleted %d tokens, want the 4 dead ones", deleted)
	}
	same(t, "the live token", keep, getIn(t, s.Auth().Write, func(tx auth.Tx) (auth.Token, error) { return tx.TokenByHash(ctx, keep.Hash) }))
	for _, tk := range tokens[1:] {
		notFoundIn(t, s.Auth().Write, "a dead token", func(tx auth.Tx) error { _, err := tx.TokenByHash(ctx, tk.Hash); return err })
	}
}
