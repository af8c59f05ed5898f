package sqlstore

import "time"

// SetTokenClock moves the clock of s's token cache, so that a test passes
// its TTL without sleeping.
func SetTokenClock(s *Store, now func() time.Time) { s.tokens.now = now }

// TokenCacheState says whether s's token cache keeps tokens, and how many
// times it has been emptied: a test waits for an announcement to be heard.
func TokenCacheState(s *Store) (on bool, emptyings uint64) {
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	return !s.tokens.off, s.tokens.gen
}

// TokensKept is how many tokens s's cache holds.
func TokensKept(s *Store) int {
	s.tokens.mu.Lock()
	defer s.tokens.mu.Unlock()
	return len(s.tokens.tokens)
}

// PendingLegsQueries are InsertMembersLockingLegs' statements of the legs
// and of their organisations, for the test of their plans.
func PendingLegsQueries(d Dialect, msisdns []string) (legs, organisations string, args []any) {
	return pendingLegsQueries(d, msisdns)
}
