package sqlstore

import (
	"context"
	"fmt"
)

// Announcing and hearing the auth writes of other processes, so that the
// token cache of every replica drops a revoked key's tokens at once
// (docs/api.md section 3, docs/operations.md "Authentication"). The
// engine says how: PostgreSQL's NOTIFY and LISTEN (postgres/tokens.go).

// TokenWatch is what an engine's listener tells a Store's token cache.
type TokenWatch struct{ c *tokenCache }

// Listening: the listener hears every announcement from now on, so the
// cache may keep tokens again; it starts empty.
func (w TokenWatch) Listening() { off := false; w.c.setOff(&off) }

// Lost: announcements may go unheard, so nothing is kept until Listening.
func (w TokenWatch) Lost() { off := true; w.c.setOff(&off) }

// Changed: another process (or this one) committed an auth write.
func (w TokenWatch) Changed() { w.c.empty() }

// WatchTokens makes each write transaction that changes what a kept
// token says (a revocation, the purge, an organisation's change) run
// announce before its commit, and runs watch for the Store's life: it
// calls Listening once it hears announcements, Changed for each, and
// Lost when it may miss some. Until its first Listening the cache is off.
func WatchTokens(announce string, watch func(ctx context.Context, w TokenWatch)) Option {
	return func(s *Store) {
		s.announceTokens = announce
		off := true
		s.tokens.setOff(&off)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			watch(ctx, TokenWatch{s.tokens})
		}()
		s.stopWatch = func() { cancel(); <-done }
	}
}

// announceChange runs the engine's announcement in t, when t changed
// what a kept token says: it is delivered with t's commit.
func (s *Store) announceChange(ctx context.Context, t *tx) error {
	if !t.tokensChanged || s.announceTokens == "" {
		return nil
	}
	if _, err := t.exec(ctx, s.announceTokens); err != nil {
		return fmt.Errorf("announce an auth write: %w", err)
	}
	return nil
}
