// Package auth is who may call the organisation API (docs/api.md
// sections 3 and 3.1): the API keys an organisation's clients hold, the
// access tokens they exchange them for, the authentication of every
// request by its token, and the roles that say what a key, or a portal
// user, may do. It imports the domain and is never imported by it; its
// transaction port (Store) is its own, which whoever holds the concrete
// store hands over (sqlstore.Store.Auth).
package auth

import (
	"context"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/idempotency"
)

// APIKey lets an organisation obtain access tokens. Only its hash is stored.
type APIKey struct {
	ID             string
	OrganisationID string
	Hash           string
	Prefix         string // the first characters, for display
	Role           Role   // what its access tokens may do (docs/api.md section 3.1)
	CreatedAt      time.Time
	RevokedAt      time.Time // zero while active
	// Secret is the key in clear, set only on the key just issued, for its
	// one answer (sealed with an Idempotency-Key's answer, if the request
	// had one). No store keeps it, and no read fills it.
	Secret string
}

// Token is an access token, stored hashed, tied to the key that issued it so
// that revoking the key revokes it at once.
type Token struct {
	Hash           string
	APIKeyID       string
	OrganisationID string
	ExpiresAt      time.Time
	CreatedAt      time.Time
	KeyRevokedAt   time.Time // the issuing key's revocation time, zero while active
	KeyPrefix      string    // the issuing key's prefix, which the audit log names it by
	KeyRole        Role      // the issuing key's role, which the token acts with
	APIVersion     string    // its organisation's default version (docs/versioning.md)
}

// Store is the port: write transactions over the keys and tokens, and the
// lookups every organisation request makes.
type Store interface {
	// Write runs fn in one write transaction and commits when fn returns
	// nil, retrying it as disburse.Store.Write does.
	Write(ctx context.Context, fn func(Tx) error) error
	// TokenByHash is Tx.TokenByHash as one statement outside any
	// transaction: a single statement reads one snapshot by itself, and a
	// transaction's BEGIN and ROLLBACK would only add round trips to the
	// read every organisation request makes.
	TokenByHash(ctx context.Context, hash string) (Token, error)
	// TokenAndBatch reads the token with hash, as TokenByHash does, and the
	// batch batchID of the token's organisation in one statement outside any
	// transaction. disburse.ErrNotFound when either is missing or the batch
	// belongs to another organisation; the caller tells which apart.
	TokenAndBatch(ctx context.Context, tokenHash, batchID string) (Token, disburse.Batch, error)
}

// Tx is what a transaction can do here. Lookups return disburse.ErrNotFound
// for a missing row.
type Tx interface {
	// IdempotencyMarks: a claimed request marks its Idempotency-Key and
	// keeps its answer in the transaction of its work (idempotency.Claim.Keep).
	disburse.IdempotencyMarks
	// InsertAudit appends to the audit log, as disburse.Tx does.
	InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error
	// Organisation returns the organisation id, as disburse.Tx does.
	Organisation(ctx context.Context, id string) (disburse.Organisation, error)

	InsertAPIKey(ctx context.Context, k APIKey) error
	APIKey(ctx context.Context, id string) (APIKey, error)
	APIKeyByHash(ctx context.Context, hash string) (APIKey, error)
	RevokeAPIKey(ctx context.Context, id string, at time.Time) error
	InsertToken(ctx context.Context, t Token) error
	// TokenByHash returns the token with KeyRevokedAt filled from its key.
	TokenByHash(ctx context.Context, hash string) (Token, error)
	// DeleteDeadTokens deletes up to limit tokens that expired at or before
	// now or whose key is revoked, and returns how many it deleted.
	DeleteDeadTokens(ctx context.Context, now time.Time, limit int) (int, error)
}

// DefaultTokenTTL is how long an access token lives when nothing says otherwise.
const DefaultTokenTTL = time.Hour

// Service holds the use cases of keys, tokens and authentication, above
// Store. The HTTP API, the portal, the CLI and the worker call it.
type Service struct {
	Store    Store
	TokenTTL time.Duration
	// core is the domain's Service, whose Clock this one reads: a test
	// that moves it moves the tokens' expiry with it.
	core *disburse.Service
}

// New returns the Service over store, on the clock of the domain's Service.
func New(store Store, core *disburse.Service) *Service {
	return &Service{Store: store, TokenTTL: DefaultTokenTTL, core: core}
}

// now is the time of one use case: read once, so a transaction sees one
// clock; truncated to microseconds, the precision the stores keep.
func (s *Service) now() time.Time {
	return s.core.Clock().UTC().Truncate(time.Microsecond)
}

// audit appends an entry to the log inside the change's own transaction.
func (s *Service) audit(ctx context.Context, tx Tx, actor disburse.Actor, action, organisationID, subject string, details any) error {
	return tx.InsertAudit(ctx, disburse.NewAuditEntry(s.now(), actor, action, organisationID, subject, details))
}

// Claimed returns a copy of s whose every write transaction runs under c,
// an Idempotency-Key claimed with idempotency.Keys.Begin: the key is
// marked done, and its answer made from the key issued
// (idempotency.Written.Feature), in the same transaction as the work.
func (s *Service) Claimed(c *idempotency.Claim) *Service {
	cp := *s
	cp.Store = claimStore{Store: s.Store, c: c}
	return &cp
}

// claimStore is a Store whose writes carry a claim.
type claimStore struct {
	Store
	c *idempotency.Claim
}

func (cs claimStore) Write(ctx context.Context, fn func(Tx) error) error {
	return cs.Store.Write(ctx, func(tx Tx) error {
		return cs.c.Keep(ctx, tx, func(w *idempotency.Written) error { return fn(&writtenTx{Tx: tx, written: w}) })
	})
}

// writtenTx is a Tx that notes the key a claimed request issues.
type writtenTx struct {
	Tx
	written *idempotency.Written
}

func (w *writtenTx) InsertAPIKey(ctx context.Context, k APIKey) error {
	err := w.Tx.InsertAPIKey(ctx, k)
	if err == nil {
		w.written.Feature = k
	}
	return err
}
