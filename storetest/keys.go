package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testAPIKey(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	k := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_one"), Prefix: "dak_on", Role: disburse.RoleMaker,
		CreatedAt: t0, Secret: "dak_one"}
	write(t, s, func(tx disburse.Tx) error { return tx.InsertAPIKey(ctx, k) })
	k.Secret = "" // never kept: only its hash is
	same(t, "APIKey", k, get(t, s, func(tx disburse.Tx) (disburse.APIKey, error) { return tx.APIKey(ctx, k.ID) }))
	same(t, "APIKeyByHash", k, get(t, s, func(tx disburse.Tx) (disburse.APIKey, error) { return tx.APIKeyByHash(ctx, k.Hash) }))

	twin := k
	twin.ID = disburse.NewID()
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.InsertAPIKey(ctx, twin) }); err == nil {
		t.Error("a second key with the same hash was accepted")
	}

	write(t, s, func(tx disburse.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(time.Hour)) })
	write(t, s, func(tx disburse.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(2*time.Hour)) })
	k.RevokedAt = at(time.Hour) // the first revocation stands
	same(t, "revoked APIKey", k, get(t, s, func(tx disburse.Tx) (disburse.APIKey, error) { return tx.APIKey(ctx, k.ID) }))

	missing := disburse.NewID()
	notFound(t, s, "APIKey", func(tx disburse.Tx) error { _, err := tx.APIKey(ctx, missing); return err })
	notFound(t, s, "APIKeyByHash", func(tx disburse.Tx) error { _, err := tx.APIKeyByHash(ctx, "nope"); return err })
	if err := s.Write(ctx, func(tx disburse.Tx) error { return tx.RevokeAPIKey(ctx, missing, t0) }); err == nil {
		t.Error("RevokeAPIKey of a missing key: no error")
	}
}

func testToken(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	k := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_two"), Prefix: "dak_tw", Role: disburse.RoleApprover,
		CreatedAt: t0}
	tok := disburse.Token{Hash: disburse.HashSecret("dat_one"), APIKeyID: k.ID, OrganisationID: w.org.ID, ExpiresAt: at(time.Hour), CreatedAt: t0}
	write(t, s, func(tx disburse.Tx) error {
		if err := tx.InsertAPIKey(ctx, k); err != nil {
			return err
		}
		return tx.InsertToken(ctx, tok)
	})
	tok.KeyPrefix = k.Prefix // read with the token, the audit log's name of its key
	tok.KeyRole = k.Role     // and the role the token acts with
	same(t, "TokenByHash", tok, get(t, s, func(tx disburse.Tx) (disburse.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	write(t, s, func(tx disburse.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(time.Minute)) })
	tok.KeyRevokedAt = at(time.Minute)
	same(t, "TokenByHash of a revoked key", tok, get(t, s, func(tx disburse.Tx) (disburse.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	notFound(t, s, "TokenByHash", func(tx disburse.Tx) error { _, err := tx.TokenByHash(ctx, "nope"); return err })
}

// testDeleteDeadTokens: expired tokens and a revoked key's tokens go, in
// batches of at most limit; live tokens of a live key stay.
func testDeleteDeadTokens(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	live := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_live"), Prefix: "dak_li", Role: disburse.RoleViewer, CreatedAt: t0}
	revoked := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_gone"), Prefix: "dak_go", Role: disburse.RoleViewer, CreatedAt: t0}
	token := func(key disburse.APIKey, name string, expires time.Duration) disburse.Token {
		return disburse.Token{Hash: disburse.HashSecret(name), APIKeyID: key.ID, OrganisationID: w.org.ID, ExpiresAt: at(expires), CreatedAt: t0,
			KeyPrefix: key.Prefix, KeyRole: key.Role}
	}
	keep := token(live, "dat_keep", 2*time.Hour)
	tokens := []disburse.Token{
		keep,
		token(live, "dat_expired1", time.Minute),
		token(live, "dat_expired2", time.Hour), // expires exactly now: dead
		token(revoked, "dat_revoked1", 2*time.Hour),
		token(revoked, "dat_revoked2", 2*time.Hour),
	}
	write(t, s, func(tx disburse.Tx) error {
		for _, k := range []disburse.APIKey{live, revoked} {
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
		write(t, s, func(tx disburse.Tx) (err error) { n, err = tx.DeleteDeadTokens(ctx, now, 3); return err })
		if n > 3 {
			t.Fatalf("DeleteDeadTokens deleted %d, past its limit of 3", n)
		}
		deleted += n
	}
	if deleted != 4 {
		t.Errorf("deleted %d tokens, want the 4 dead ones", deleted)
	}
	same(t, "the live token", keep, get(t, s, func(tx disburse.Tx) (disburse.Token, error) { return tx.TokenByHash(ctx, keep.Hash) }))
	for _, tk := range tokens[1:] {
		notFound(t, s, "a dead token", func(tx disburse.Tx) error { _, err := tx.TokenByHash(ctx, tk.Hash); return err })
	}
}
