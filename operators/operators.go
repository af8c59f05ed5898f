// Package operators is what the operator API knows beside the money: the
// named operator tokens that sign in to it (docs/operations.md "Operator
// tokens"), and the operator's and organisations' reads of the audit log,
// the organisations and their API keys (docs/api.md section 7). It has its
// own transaction port (Store), which sqlstore implements; the audit
// entries themselves are written by each change's own transaction.
package operators

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/internal/secrets"
	"github.com/disburse/disburse/internal/text"
)

// Store is the port: transactions over the operator tokens and the reads.
type Store interface {
	// WriteOperators runs fn in one write transaction and commits when fn
	// returns nil, retrying it as disburse.Store.Write does.
	WriteOperators(ctx context.Context, fn func(Tx) error) error
	// ReadOperators runs fn in a read-only transaction.
	ReadOperators(ctx context.Context, fn func(Tx) error) error
}

// Tx is what a transaction can do here. Lookups return disburse.ErrNotFound
// for a missing row.
type Tx interface {
	// InsertAudit appends to the audit log, as disburse.Tx does.
	InsertAudit(ctx context.Context, es ...disburse.AuditEntry) error
	// AuditEntries lists the log newest first, narrowed by f; an f.After
	// that names no entry (of f.OrganisationID's, when given) is
	// disburse.ErrNotFound.
	AuditEntries(ctx context.Context, f AuditFilter) ([]disburse.AuditEntry, error)
	// OrganisationsPage lists up to limit organisations newest first,
	// after the organisation after (empty: from the newest); an after that
	// names no organisation is disburse.ErrNotFound.
	OrganisationsPage(ctx context.Context, after string, limit int) ([]disburse.Organisation, error)
	// Organisation returns the organisation id, as disburse.Tx does.
	Organisation(ctx context.Context, id string) (disburse.Organisation, error)
	// APIKeys lists an organisation's keys, newest first.
	APIKeys(ctx context.Context, organisationID string) ([]auth.APIKey, error)

	// InsertOperatorToken adds a token; a name a live token holds is
	// disburse.ErrDuplicate.
	InsertOperatorToken(ctx context.Context, t Token) error
	// LiveOperatorToken returns the unrevoked token whose column (name or
	// hash) is value.
	LiveOperatorToken(ctx context.Context, column, value string) (Token, error)
	// OperatorTokens lists the unrevoked tokens by name.
	OperatorTokens(ctx context.Context) ([]Token, error)
	// RevokeOperatorToken marks the token id revoked at at.
	RevokeOperatorToken(ctx context.Context, id string, at time.Time) error
	// TouchOperatorToken sets the token id's last use to at.
	TouchOperatorToken(ctx context.Context, id string, at time.Time) error
}

// AuditFilter narrows a page of the audit log; an empty field does not.
type AuditFilter struct {
	OrganisationID string
	Action         string
	After          string // the last entry of the previous page
	Limit          int
}

// Token is a named operator token. Only its hash is stored.
type Token struct {
	ID, Name, Hash        string
	CreatedAt, LastUsedAt time.Time // LastUsedAt zero: never used
	RevokedAt             time.Time
}

// tokenPrefix marks an operator token, so that a leaked one is known for
// what it is and a bearer token without it costs no database read.
const tokenPrefix = "dop_"

// lastUseEvery is how often at most a token's last use is written: the
// operator API needs the day a token was last used, not every request.
const lastUseEvery = time.Minute

// Bootstrap is the actor of the bootstrap token, --admin-token.
var Bootstrap = disburse.Actor{Type: disburse.ActorOperatorToken, Name: "bootstrap"}

// Service runs the operator tokens and the operator's reads.
type Service struct {
	store     Store
	bootstrap string // --admin-token; empty: none
	now       func() time.Time

	mu      sync.Mutex
	touched map[string]time.Time // token id → last use written by this process
}

// New returns the service on store, with the bootstrap token (empty:
// none). A nil store knows only the bootstrap token.
func New(store Store, bootstrap string) *Service {
	return &Service{store: store, bootstrap: bootstrap, now: time.Now, touched: map[string]time.Time{}}
}

// WithClock returns s reading the time from now (nil: the system's), as
// the domain's Service reads its Clock.
func (s *Service) WithClock(now func() time.Time) *Service {
	if now != nil {
		s.now = now
	}
	return s
}

// Authenticate returns the actor a bearer token names: the bootstrap
// token, or a live operator token, whose last use it records at most once
// a minute per process. Anything else is auth.ErrUnauthorized.
func (s *Service) Authenticate(ctx context.Context, secret string) (disburse.Actor, error) {
	if s.bootstrap != "" && sameSecret(secret, s.bootstrap) {
		return Bootstrap, nil
	}
	if !strings.HasPrefix(secret, tokenPrefix) || s.store == nil {
		return disburse.Actor{}, auth.ErrUnauthorized
	}
	t, err := read(ctx, s, func(tx Tx) (Token, error) {
		return tx.LiveOperatorToken(ctx, "hash", secrets.Hash(secret))
	})
	if errors.Is(err, disburse.ErrNotFound) {
		return disburse.Actor{}, auth.ErrUnauthorized
	}
	if err != nil {
		return disburse.Actor{}, err
	}
	if err := s.touch(ctx, t); err != nil {
		return disburse.Actor{}, err
	}
	return disburse.Actor{Type: disburse.ActorOperatorToken, ID: t.ID, Name: t.Name}, nil
}

// Plausible reports, without the database, whether secret may be an
// operator token: the bootstrap token, or one with the operator tokens'
// prefix. The rate limits spend the operator budget only for these.
func (s *Service) Plausible(secret string) bool {
	return (s.bootstrap != "" && sameSecret(secret, s.bootstrap)) || (s.store != nil && strings.HasPrefix(secret, tokenPrefix))
}

// touch writes t's last use unless it was written less than lastUseEvery ago.
func (s *Service) touch(ctx context.Context, t Token) error {
	now := s.now()
	s.mu.Lock()
	last, ok := s.touched[t.ID]
	if !ok {
		last = t.LastUsedAt
	}
	due := now.Sub(last) >= lastUseEvery
	if due {
		s.touched[t.ID] = now
	}
	s.mu.Unlock()
	if !due {
		return nil
	}
	return s.store.WriteOperators(ctx, func(tx Tx) error { return tx.TouchOperatorToken(ctx, t.ID, now) })
}

// sameSecret compares in constant time; hashing first hides the length too.
func sameSecret(a, b string) bool {
	ha, hb := sha256.Sum256([]byte(a)), sha256.Sum256([]byte(b))
	return subtle.ConstantTimeCompare(ha[:], hb[:]) == 1
}

// validName checks a token's name: 1 to 100 characters of text.
func validName(name string) error {
	if !text.Valid(name) || strings.TrimSpace(name) != name || name == "" || len([]rune(name)) > 100 || name == Bootstrap.Name {
		return disburse.Invalid("Name", name, `name is 1 to 100 characters of text, without surrounding spaces, and not "bootstrap"`)
	}
	return nil
}

// CreateToken makes a token named name, returned once: only its hash is
// kept. A name a live token holds is refused.
func (s *Service) CreateToken(ctx context.Context, actor disburse.Actor, name string) (Token, string, error) {
	if err := validName(name); err != nil {
		return Token{}, "", err
	}
	secret := secrets.New(tokenPrefix)
	t := Token{ID: disburse.NewID(), Name: name, Hash: secrets.Hash(secret), CreatedAt: s.now()}
	err := s.store.WriteOperators(ctx, func(tx Tx) error {
		if err := tx.InsertOperatorToken(ctx, t); err != nil {
			if errors.Is(err, disburse.ErrDuplicate) {
				return disburse.Invalid("Name", name, "a live operator token is named "+name)
			}
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(t.CreatedAt, actor, "operatorToken.created", "", t.ID, map[string]string{"name": name}))
	})
	if err != nil {
		return Token{}, "", err
	}
	return t, secret, nil
}

// RevokeToken revokes the live token named name: it stops working at once.
func (s *Service) RevokeToken(ctx context.Context, actor disburse.Actor, name string) error {
	return s.store.WriteOperators(ctx, func(tx Tx) error {
		t, err := tx.LiveOperatorToken(ctx, "name", name)
		if err != nil {
			return disburse.OrNotFound(err, "operator token")
		}
		now := s.now()
		if err := tx.RevokeOperatorToken(ctx, t.ID, now); err != nil {
			return err
		}
		return tx.InsertAudit(ctx, disburse.NewAuditEntry(now, actor, "operatorToken.revoked", "", t.ID, map[string]string{"name": name}))
	})
}

// Tokens lists the live tokens by name.
func (s *Service) Tokens(ctx context.Context) ([]Token, error) {
	return read(ctx, s, func(tx Tx) ([]Token, error) { return tx.OperatorTokens(ctx) })
}
