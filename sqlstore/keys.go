package sqlstore

import (
	"context"
	"fmt"
	"time"

	"github.com/disburse/disburse/auth"
)

// The API keys and access tokens (auth.Tx); the lookups of a token
// outside any transaction are in lookup.go.

// Auth returns package auth's store, on s's database: whoever opened s
// hands it to auth.New.
func (s *Store) Auth() auth.Store { return authStore{s} }

// authStore is the auth.Store of a Store.
type authStore struct{ s *Store }

// Write runs fn in a write transaction, retried as Store.Write retries,
// and then empties the token cache, whatever the outcome (a COMMIT lost
// may have been kept): a revoked key's tokens stop at once
// (token_cache.go).
func (a authStore) Write(ctx context.Context, fn func(auth.Tx) error) error {
	defer a.s.tokens.empty()
	return a.s.writeTx(ctx, func(t *tx) error { return fn(t) })
}

var _ auth.Tx = (*tx)(nil)

// apiKeyColumns are a key's columns (the role: migration 00020), which
// apiKeyFields scans.
const apiKeyColumns = `id, organisation_id, hash, prefix, role, created_at, revoked_at`

func apiKeyFields(k *auth.APIKey) []any {
	return []any{&k.ID, &k.OrganisationID, &k.Hash, &k.Prefix, &k.Role, at(&k.CreatedAt), at(&k.RevokedAt)}
}

func (t *tx) InsertAPIKey(ctx context.Context, k auth.APIKey) error {
	return t.insert(ctx, "api key",
		`INSERT INTO api_keys (`+apiKeyColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		k.ID, k.OrganisationID, k.Hash, k.Prefix, string(k.Role), micros(k.CreatedAt), micros(k.RevokedAt))
}

func (t *tx) APIKey(ctx context.Context, id string) (auth.APIKey, error) {
	return t.apiKey(ctx, "id", id)
}

func (t *tx) APIKeyByHash(ctx context.Context, hash string) (auth.APIKey, error) {
	return t.apiKey(ctx, "hash", hash)
}

// apiKey looks a key up by column, id or hash (both unique).
func (t *tx) apiKey(ctx context.Context, column, value string) (auth.APIKey, error) {
	var k auth.APIKey
	err := t.queryRow(ctx, `SELECT `+apiKeyColumns+` FROM api_keys WHERE `+column+` = ?`, value).Scan(apiKeyFields(&k)...)
	return k, found("api key", err)
}

// RevokeAPIKey keeps the first revocation time when a key is revoked twice.
func (t *tx) RevokeAPIKey(ctx context.Context, id string, at time.Time) error {
	t.tokensChanged = true // every replica's kept tokens of the key (token_watch.go)
	return t.update(ctx, "api key", `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?`, micros(at), id)
}

func (t *tx) InsertToken(ctx context.Context, tk auth.Token) error {
	return t.insert(ctx, "token",
		`INSERT INTO tokens (hash, api_key_id, organisation_id, expires_at, created_at) VALUES (?, ?, ?, ?, ?)`,
		tk.Hash, tk.APIKeyID, tk.OrganisationID, micros(tk.ExpiresAt), micros(tk.CreatedAt))
}

// DeleteDeadTokens finds expired tokens by their expiry's index and
// revoked keys' tokens by the key's: a UNION, so that each side uses its
// index rather than one scan of every token for an OR.
func (t *tx) DeleteDeadTokens(ctx context.Context, now time.Time, limit int) (int, error) {
	res, err := t.exec(ctx, `DELETE FROM tokens WHERE hash IN (
		SELECT hash FROM tokens WHERE expires_at <= ?
		UNION
		SELECT t.hash FROM api_keys k JOIN tokens t ON t.api_key_id = k.id WHERE k.revoked_at IS NOT NULL
		LIMIT ?)`, micros(now), limit)
	if err != nil {
		return 0, fmt.Errorf("delete dead tokens: %w", err)
	}
	n, err := res.RowsAffected()
	// A purged token was refused already (expired, or its key's revocation
	// announced); announcing its deletion keeps every cache to what the
	// table holds, at the cost of one emptying a purge.
	t.tokensChanged = t.tokensChanged || n > 0
	return int(n), err
}

func (t *tx) TokenByHash(ctx context.Context, hash string) (auth.Token, error) {
	var tk auth.Token
	err := t.queryRow(ctx, tokenByHashQuery, hash).Scan(tokenFields(&tk)...)
	return tk, found("token", err)
}

// tokenColumns, of tokens t joined to api_keys k, read a token with its
// key's revocation, so that a revoked key's tokens fail on the very next
// request (docs/api.md section 3), and its key's role, which the token
// acts with (section 3.1): a key's role never changes, so the token need
// not keep a copy. It reads its organisation's default version too
// (docs/versioning.md), by primary key, for the request's version.
const (
	tokenColumns = `t.hash, t.api_key_id, t.organisation_id, t.expires_at, t.created_at, k.revoked_at, k.prefix, k.role,
		(SELECT o.api_version FROM organisations o WHERE o.id = t.organisation_id)`
	tokenByHashQuery = `SELECT ` + tokenColumns + ` FROM tokens t JOIN api_keys k ON k.id = t.api_key_id WHERE t.hash = ?`
)

// tokenFields are the scan destinations of tokenColumns.
func tokenFields(tk *auth.Token) []any {
	return []any{&tk.Hash, &tk.APIKeyID, &tk.OrganisationID, at(&tk.ExpiresAt), at(&tk.CreatedAt), at(&tk.KeyRevokedAt), &tk.KeyPrefix, &tk.KeyRole, &tk.APIVersion}
}
