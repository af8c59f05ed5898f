package auth

import (
	"context"
	"errors"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/secrets"
)

// Prefixes make a leaked secret recognisable by its kind.
const (
	apiKeyPrefix = "dak_"
	tokenPrefix  = "dat_"
)

// CreateAPIKey is CreateAPIKeyBy as the actor in ctx, of the default role, admin.
func (s *Service) CreateAPIKey(ctx context.Context, organisationID string) (APIKey, string, error) {
	return s.CreateAPIKeyBy(ctx, disburse.ActorOf(ctx), organisationID, "")
}

// CreateAPIKeyBy issues an API key of role to an organisation; an empty
// role is admin, the role of every key made before roles existed
// (docs/api.md section 3.1). The key is returned once and only its hash
// is stored (docs/api.md section 3).
func (s *Service) CreateAPIKeyBy(ctx context.Context, actor disburse.Actor, organisationID string, role Role) (APIKey, string, error) {
	if !disburse.ValidID(organisationID) {
		return APIKey{}, "", disburse.NotFound("organisation")
	}
	if role == "" {
		role = RoleAdmin
	}
	if err := CheckRole("Role", string(role)); err != nil {
		return APIKey{}, "", err
	}
	var key APIKey
	var secret string
	err := s.Store.Write(ctx, func(tx Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return disburse.OrNotFound(err, "organisation")
		}
		prefix := keyPrefix(org) // a sandbox's keys say so (docs/sandbox.md)
		secret = secrets.New(prefix)
		key = APIKey{ID: disburse.NewID(), OrganisationID: organisationID, Hash: secrets.Hash(secret), Prefix: secret[:len(prefix)+6], Role: role,
			CreatedAt: s.now(), Secret: secret}
		if err := tx.InsertAPIKey(ctx, key); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, "apiKey.issued", organisationID, key.ID, map[string]string{"prefix": key.Prefix, "role": string(role)})
	})
	if err != nil {
		return APIKey{}, "", err
	}
	return key, secret, nil
}

// RevokeAPIKey is RevokeAPIKeyBy as the actor in ctx.
func (s *Service) RevokeAPIKey(ctx context.Context, id string) error {
	return s.RevokeAPIKeyBy(ctx, disburse.ActorOf(ctx), id)
}

// RevokeAPIKeyBy revokes a key; the tokens it issued stop working at once
// on this replica, because every token lookup reads its key's revocation
// and the store forgets the tokens it kept when an auth write commits,
// and within a second on the others (docs/api.md section 3).
func (s *Service) RevokeAPIKeyBy(ctx context.Context, actor disburse.Actor, id string) error {
	if !disburse.ValidID(id) {
		return disburse.NotFound("API key")
	}
	return s.Store.Write(ctx, func(tx Tx) error {
		key, err := tx.APIKey(ctx, id)
		if err != nil {
			return disburse.OrNotFound(err, "API key")
		}
		if !key.RevokedAt.IsZero() {
			return nil
		}
		if err := tx.RevokeAPIKey(ctx, id, s.now()); err != nil {
			return err
		}
		return s.audit(ctx, tx, actor, "apiKey.revoked", key.OrganisationID, key.ID, map[string]string{"prefix": key.Prefix})
	})
}

// ErrUnauthorized is the one answer to every failed authentication, by API
// token or by the operator's, so a
// caller learns nothing about which part was wrong.
var ErrUnauthorized = disburse.Errorf(disburse.CodeUnauthorized, "missing, invalid, expired or revoked credentials")

// IssueToken exchanges an API key for an access token valid for TokenTTL.
func (s *Service) IssueToken(ctx context.Context, apiKey string) (string, time.Duration, error) {
	if apiKey == "" {
		return "", 0, disburse.Invalid("ApiKey", "", "apiKey is required")
	}
	now := s.now()
	secret := secrets.New(tokenPrefix)
	err := s.Store.Write(ctx, func(tx Tx) error {
		key, err := tx.APIKeyByHash(ctx, secrets.Hash(apiKey))
		if errors.Is(err, disburse.ErrNotFound) {
			return ErrUnauthorized
		}
		if err != nil {
			return err
		}
		if !key.RevokedAt.IsZero() {
			return ErrUnauthorized
		}
		return tx.InsertToken(ctx, Token{
			Hash: secrets.Hash(secret), APIKeyID: key.ID, OrganisationID: key.OrganisationID,
			ExpiresAt: now.Add(s.TokenTTL), CreatedAt: now,
		})
	})
	if err != nil {
		return "", 0, err
	}
	return secret, s.TokenTTL, nil
}

// Caller is who an access token acts for: its organisation, its API key
// as the actor of the changes it makes, and the key's role.
type Caller struct {
	OrganisationID string
	Actor          disburse.Actor
	Roles          Roles
	// APIVersion is the organisation's default version (docs/versioning.md).
	APIVersion string
}

// Authenticate returns who an access token acts for.
func (s *Service) Authenticate(ctx context.Context, token string) (Caller, error) {
	if token == "" {
		return Caller{}, ErrUnauthorized
	}
	// The store may keep a token for a moment (sqlstore/token_cache.go):
	// a revoked key's tokens stop at once on the replica that revoked it,
	// and within a second on the others (docs/api.md section 3).
	t, err := s.Store.TokenByHash(ctx, secrets.Hash(token))
	if errors.Is(err, disburse.ErrNotFound) {
		return Caller{}, ErrUnauthorized
	}
	if err != nil {
		return Caller{}, err
	}
	return s.tokenCaller(t)
}

// tokenCaller is who a token found by its hash acts for, unless its key
// is revoked or it has expired.
func (s *Service) tokenCaller(t Token) (Caller, error) {
	if !t.KeyRevokedAt.IsZero() || !s.now().Before(t.ExpiresAt) {
		return Caller{}, ErrUnauthorized
	}
	return Caller{OrganisationID: t.OrganisationID, Actor: disburse.Actor{Type: disburse.ActorAPIKey, ID: t.APIKeyID, Name: t.KeyPrefix},
		Roles: RolesOf(t.KeyRole), APIVersion: t.APIVersion}, nil
}

// purgeBatchSize bounds one transaction of PurgeTokens.
const purgeBatchSize = 1000

// PurgeTokens deletes access tokens that can no longer be used: expired,
// or of a revoked key. Every getToken adds one; the worker calls this
// every interval so the table holds only live tokens. It returns how many
// it deleted.
func (s *Service) PurgeTokens(ctx context.Context) (int, error) {
	total := 0
	for ctx.Err() == nil {
		var n int
		err := s.Store.Write(ctx, func(tx Tx) (err error) {
			n, err = tx.DeleteDeadTokens(ctx, s.now(), purgeBatchSize)
			return err
		})
		total += n
		if err != nil || n < purgeBatchSize {
			return total, err
		}
	}
	return total, nil
}
