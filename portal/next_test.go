package portal_test

import (
	"testing"

	"github.com/disburse/disburse/portal"
)

// TestSafeNext: a sign-in's next is followed only to the portal's own
// pages; every hostile value goes to the portal's home.
func TestSafeNext(t *testing.T) {
	for next, want := range map[string]string{
		// The portal's own pages, kept (query included) or cleaned.
		"/portal/":                         "/portal/",
		"/portal/batches":                  "/portal/batches",
		"/portal/batches/0193abc?take=20":  "/portal/batches/0193abc?take=20",
		"/portal/batches/./x":              "/portal/batches/x",
		"/portal/batches/../organisations": "/portal/organisations",
		"/portal/audit?q=a%20b":            "/portal/audit?q=a%20b",
		"/portal/batches#frag":             "/portal/batches",
		"/portal":                          "/portal/",
		// Hostile: another host, however spelled.
		"":                               "/portal/",
		`/portal/../\evil.example`:       "/portal/",
		`/portal/..\..\evil.example`:     "/portal/",
		`/\evil.example`:                 "/portal/",
		"//evil.example":                 "/portal/",
		"//evil.example/portal/":         "/portal/",
		"/portal//evil.example":          "/portal/",
		"/portal/..//evil.example":       "/portal/",
		"https://evil.example/portal/":   "/portal/",
		"javascript:alert(1)":            "/portal/",
		"/portal/../%5cevil.example":     "/portal/",
		"/portal/..%2f..%2fevil.example": "/portal/",
		"/portal/%2F%2Fevil.example":     "/portal/",
		"/portal/%5C%5Cevil.example":     "/portal/",
		"/portal/\r\nLocation: //evil":   "/portal/",
		"/portal/\x00":                   "/portal/",
		"/portal/\tx":                    "/portal/",
		"/portal/\x7f":                   "/portal/",
		"/portal/..":                     "/portal/",
		"/portal/../..":                  "/portal/",
		"/portal/../admin":               "/portal/",
		"/portalx/../portal/batches":     "/portal/batches",
		"/portalx":                       "/portal/",
		"portal/batches":                 "/portal/",
		"../portal/batches":              "/portal/",
		"http:/portal/batches":           "/portal/",
		"/portal/@evil.example":          "/portal/@evil.example",
		"https:\\\\evil.example":         "/portal/",
		"\\\\evil.example":               "/portal/",
		"/%2e%2e/evil":                   "/portal/",
	} {
		if got := portal.SafeNext(next); got != want {
			t.Errorf("SafeNext(%q) = %q, want %q", next, got, want)
		}
	}
}
