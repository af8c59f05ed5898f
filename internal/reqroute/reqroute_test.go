package reqroute

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestRoute: the pattern of the router that served the request, through a
// middleware that copies the request; the first noted wins over an outer
// router's; "unmatched" when none matched.
func TestRoute(t *testing.T) {
	inner := http.NewServeMux()
	inner.HandleFunc("GET /members/{msisdn}/exists", func(http.ResponseWriter, *http.Request) {})
	copying := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		Note(inner).ServeHTTP(w, r.WithContext(r.Context()))
	})
	outer := http.NewServeMux()
	outer.Handle("/", copying)
	for path, want := range map[string]string{
		"/members/254712345678/exists": "/members/{msisdn}/exists",
		"/no/such/path":                "unmatched",
	} {
		r, route := Track(httptest.NewRequest("GET", path, nil))
		Note(outer).ServeHTTP(httptest.NewRecorder(), r)
		if got := route(); got != want {
			t.Errorf("%s: route %q, want %q", path, got, want)
		}
	}
	r, route := Track(httptest.NewRequest("GET", "/x", nil))
	Set(r, "POST /batches")
	if got := route(); got != "/batches" {
		t.Errorf("after Set: %q", got)
	}
}
