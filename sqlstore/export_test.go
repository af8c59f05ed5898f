package sqlstore

import "time"

// SetTokenClock moves the clock of s's token cache, so that a test passes
// its TTL without sleeping.
func SetTokenClock(s *Store, now func() time.Time) { s.tokens.now = now }
