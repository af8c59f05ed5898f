// Package apiversion names the dated versions of the API
// (docs/versioning.md), oldest first. A request names one in
// Disburse-Version; without it, its organisation's default applies. First
// is the API as it was before versions, and stays every organisation's
// default unless the operator sets another.
package apiversion

import "slices"

const (
	// First is the API as it was before versions.
	First = "2026-11-01"
	// V20261201: date-times with Z, keyset pages, unknown members refused.
	V20261201 = "2026-12-01"
)

// All lists every version, oldest first; the last is the newest.
var All = []string{First, V20261201}

// Known reports whether v names a version of All.
func Known(v string) bool { return slices.Contains(All, v) }
