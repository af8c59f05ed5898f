package disburse

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"

	"github.com/google/uuid"
)

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

// NewSecret returns a random string of 256 bits, URL safe, prefixed so that a
// leaked secret can be recognised by its kind.
func NewSecret(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms.
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// HashSecret is how API keys and access tokens are stored. The secrets carry
// 256 bits of entropy, so a plain SHA-256 is enough (no password stretching).
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
