// Package reqroute carries the pattern of the route that served a request
// out to the middleware around every router, which logs and counts
// requests by it (docs/operations.md, "Logs" and "Metrics"): the API's
// and the portal's routers each note their pattern, and the request log
// outside both reads it. A middleware between them may pass a copy of the
// request (r.WithContext), which ServeMux's own r.Pattern would not
// survive; the slot in the context does.
package reqroute

import (
	"context"
	"net/http"
	"strings"
)

type key struct{}

// slot holds the pattern noted for one request, "" when the router that
// noted it matched none.
type slot struct {
	pattern string
	noted   bool
}

// Track returns r with an empty slot in its context, and a function that
// says the route noted there once the request has been served: the path
// of the pattern (/members/{msisdn}/exists, never the path the client
// sent), or "unmatched" when no route served it.
func Track(r *http.Request) (*http.Request, func() string) {
	s := &slot{}
	return r.WithContext(context.WithValue(r.Context(), key{}, s)), s.route
}

func (s *slot) route() string {
	if _, path, ok := strings.Cut(s.pattern, " "); ok {
		return path
	}
	if s.pattern != "" {
		return s.pattern
	}
	return "unmatched"
}

// Set notes pattern in r's slot, if r has one: for a router that knows its
// route before the middleware in front of the handler runs (so that a
// request refused there is logged by its route too).
func Set(r *http.Request, pattern string) {
	if s, ok := r.Context().Value(key{}).(*slot); ok {
		s.pattern, s.noted = pattern, true
	}
}

// Note wraps a ServeMux: once it has served r, the pattern it matched (""
// for none) goes into r's slot, unless a router inside it noted first:
// the innermost router is the one that knows the route.
func Note(mux http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() { // a panic's request is logged by its route too
			if s, ok := r.Context().Value(key{}).(*slot); ok && !s.noted {
				s.pattern, s.noted = r.Pattern, true
			}
		}()
		mux.ServeHTTP(w, r)
	})
}
