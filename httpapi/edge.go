package httpapi

import (
	"net/http"

	"github.com/disburse/disburse/internal/clientaddr"
)

// Edge wraps the whole service, the API and the portal beside it, in what
// every answer needs whichever of them writes it, ServeMux's own redirects
// included: an X-Request-Id (docs/api.md section 2), the client's address
// from behind the trusted proxies (clientaddr), and Strict-Transport-Security
// when the client came over HTTPS (docs/operations.md, "TLS and reverse
// proxies"). New's middleware runs inside it and keeps its request id.
func Edge(h http.Handler, proxies clientaddr.Proxies) http.Handler {
	return chain(h, withRequestID, proxies.Handler, strictTransport)
}

// hsts keeps browsers on HTTPS for a year once they have seen it.
const hsts = "max-age=31536000"

// strictTransport sets Strict-Transport-Security on answers to clients
// that came over HTTPS; over plain HTTP a browser ignores it.
func strictTransport(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if clientaddr.HTTPS(r) {
			w.Header().Set("Strict-Transport-Security", hsts)
		}
		next.ServeHTTP(w, r)
	})
}
