package storetest

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testAPIKey(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w := newWorld(t, s)
	k := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_one"), Prefix: "dak_on", CreatedAt: t0}
	write(t, s, func(tx disburse.Tx) error { return tx.InsertAPIKey(ctx, k) })
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
	k := disburse.APIKey{ID: disburse.NewID(), OrganisationID: w.org.ID, Hash: disburse.HashSecret("dak_two"), Prefix: "dak_tw", CreatedAt: t0}
	tok := disburse.Token{Hash: disburse.HashSecret("dat_one"), APIKeyID: k.ID, OrganisationID: w.org.ID, ExpiresAt: at(time.Hour), CreatedAt: t0}
	write(t, s, func(tx disburse.Tx) error {
		if err := tx.InsertAPIKey(ctx, k); err != nil {
			return err
		}
		return tx.InsertToken(ctx, tok)
	})
	same(t, "TokenByHash", tok, get(t, s, func(tx disburse.Tx) (disburse.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	write(t, s, func(tx disburse.Tx) error { return tx.RevokeAPIKey(ctx, k.ID, at(time.Minute)) })
	tok.KeyRevokedAt = at(time.Minute)
	same(t, "TokenByHash of a revoked key", tok, get(t, s, func(tx disburse.Tx) (disburse.Token, error) { return tx.TokenByHash(ctx, tok.Hash) }))

	notFound(t, s, "TokenByHash", func(tx disburse.Tx) error { _, err := tx.TokenByHash(ctx, "nope"); return err })
}
