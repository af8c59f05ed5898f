package portal

import (
	"net/url"
	"path"
	"strings"
)

// safeNext is where a sign-in sends the browser: next when it is one of
// the portal's own pages, else the portal's home (docs/portal.md,
// "Signing in"). A browser reads a backslash as a slash and a path that
// starts with two slashes as another host, so a next with a backslash,
// "//", a scheme, a host, a percent-encoded path or a control character
// is refused whole rather than repaired; what passes is cleaned with
// path.Clean and must still lie under Prefix.
func safeNext(next string) string {
	if next == "" || strings.ContainsAny(next, `\`) || hasControl(next) {
		return Prefix
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Opaque != "" || u.User != nil || u.Host != "" {
		return Prefix
	}
	raw, _, _ := strings.Cut(next, "?")
	raw, _, _ = strings.Cut(raw, "#")
	// The portal's paths hold no escapes: %2f and %5c are slashes in disguise.
	if strings.Contains(raw, "//") || strings.Contains(raw, "%") || !strings.HasPrefix(raw, "/") {
		return Prefix
	}
	clean := path.Clean(raw)
	if !strings.HasPrefix(clean+"/", Prefix) || clean+"/" == Prefix {
		return Prefix
	}
	if u.RawQuery != "" {
		clean += "?" + u.RawQuery
	}
	return clean
}

// hasControl reports an ASCII control character or DEL.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}
