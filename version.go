package disburse

import (
	"slices"
	"strings"
)

// The dated versions of the API (docs/versioning.md), oldest first. A
// request names one in Disburse-Version; without it, its organisation's
// default applies. FirstVersion is the API as it was before versions, and
// stays every organisation's default unless the operator sets another.
const (
	FirstVersion = "2026-11-01"
	// Version20261201: date-times with Z, keyset pages, unknown members refused.
	Version20261201 = "2026-12-01"
)

// Versions lists every version, oldest first; the last is the newest.
var Versions = []string{FirstVersion, Version20261201}

// KnownVersion reports whether v names a version of Versions.
func KnownVersion(v string) bool { return slices.Contains(Versions, v) }

// validVersion checks an optional version field of an input into v: empty
// is left to the caller's default.
func validVersion(v *Validation, field, version string) {
	if version != "" && !KnownVersion(version) {
		v.Add(-1, field, version, "apiVersion must be one of "+strings.Join(Versions, ", "))
	}
}
