package disburse

import "github.com/google/uuid"

// NewID returns a new lower-case UUIDv7: time-ordered, so index friendly.
func NewID() string {
	return uuid.Must(uuid.NewV7()).String()
}

// ValidID reports whether s is a UUID in the canonical lower-case form the
// service hands out. Anything else in a path is a 404 (docs/api.md section 1).
func ValidID(s string) bool {
	if len(s) != 36 {
		return false
	}
	u, err := uuid.Parse(s)
	return err == nil && u.String() == s
}
