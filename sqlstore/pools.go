package sqlstore

import "database/sql"

// Pools names the store's connection pools for monitoring: "write" and
// "read", or "main" alone when one pool does both.
func (s *Store) Pools() map[string]*sql.DB {
	if s.write == s.read {
		return map[string]*sql.DB{"main": s.write}
	}
	return map[string]*sql.DB{"write": s.write, "read": s.read}
}
