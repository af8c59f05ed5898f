// Package secrets makes the secrets the service hands out (API keys,
// access tokens, operator tokens, portal sessions and invitations) and the
// hash it stores of each in their place.
package secrets

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
)

// New returns a random string of 256 bits, URL safe, prefixed so that a
// leaked secret can be recognised by its kind.
func New(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand.Read never fails on supported platforms.
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// Hash is how secrets are stored. They carry 256 bits of entropy, so a
// plain SHA-256 is enough (no password stretching).
func Hash(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}
