package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/clientaddr"
	"github.com/disburse/disburse/internal/reqroute"
)

// middleware wraps a handler; New lists them outermost first.
type middleware func(http.Handler) http.Handler

type requestIDKey struct{}

// maxRequestIDLen bounds a caller's X-Request-Id, so a log line stays a line.
const maxRequestIDLen = 64

// withRequestID gives every request an id, echoed in X-Request-Id on every
// response (docs/api.md section 2): the caller's when it is sane, else a new
// one; the one Edge gave, when it runs inside Edge.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := requestIDFrom(r.Context())
		if id == "" {
			id = r.Header.Get("X-Request-Id")
		}
		if !saneRequestID(id) {
			id = disburse.NewID()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey{}, id)))
	})
}

// saneRequestID: 1 to 64 characters of [A-Za-z0-9._-], nothing that could
// forge a log line or a header.
func saneRequestID(id string) bool {
	if id == "" || len(id) > maxRequestIDLen {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// route is the pattern of the route that serves r, /members/{msisdn}/exists,
// or "unmatched": what a log line may say of a request's path, which can
// hold an msisdn.
func (s *server) route(r *http.Request) string {
	if s.mux == nil { // a server built by hand in a test
		return "unmatched"
	}
	_, pattern := s.mux.Handler(r)
	if _, path, ok := strings.Cut(pattern, " "); ok {
		return path
	}
	if pattern != "" {
		return pattern
	}
	return "unmatched"
}

func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey{}).(string)
	return id
}

// accessLog logs one line per request, the API's and the portal's, and
// counts and times it (metrics.go): never a header or a body, so no
// secret reaches the log, and the route's pattern, never the path, so no
// msisdn does; the client's address is clientaddr's, the one the rate
// limits use (docs/operations.md, "Logs" and "Metrics"). The router that
// served the request notes its pattern (internal/reqroute).
func (s *server) accessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &recorder{ResponseWriter: w}
		r, route := reqroute.Track(r)
		next.ServeHTTP(rec, r)
		status := rec.status()
		s.metrics.observe(route(), r.Method, status, start)
		s.log.LogAttrs(r.Context(), slog.LevelInfo, "request",
			slog.String("request_id", requestIDFrom(r.Context())),
			slog.String("method", r.Method), slog.String("route", route()),
			slog.String("client", clientaddr.Of(r)),
			slog.Int("status", status), slog.Int64("bytes", rec.written),
			slog.Duration("duration", time.Since(start)))
	})
}

// recoverPanics turns a panic into a 500 internal problem, logged with its
// stack and the request id; the client sees neither.
func (s *server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := &recorder{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v) // the server's own way to abort a response
			}
			err := fmt.Errorf("panic: %v\n%s", v, debug.Stack())
			if rec.wroteHeader {
				s.log.ErrorContext(r.Context(), "panic after the response started", "request_id", requestIDFrom(r.Context()), "err", err)
				return
			}
			s.writeError(rec, r, err)
		}()
		next.ServeHTTP(rec, r)
	})
}

// limitBody caps every request body (docs/api.md section 4.1: 64 MiB by default). A
// declared length past the cap is refused at once; an undeclared one fails
// when decode reads past it.
func (s *server) limitBody(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.ContentLength > s.maxBody {
			s.writeError(w, r, payloadTooLarge(s.maxBody))
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, s.maxBody)
		next.ServeHTTP(w, r)
	})
}

// recorder notes the status and size of a response.
type recorder struct {
	http.ResponseWriter
	code        int
	wroteHeader bool
	written     int64
}

func (r *recorder) WriteHeader(code int) {
	if !r.wroteHeader {
		r.code, r.wroteHeader = code, true
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *recorder) Write(b []byte) (int, error) {
	if !r.wroteHeader {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(b)
	r.written += int64(n)
	return n, err
}

func (r *recorder) status() int {
	if !r.wroteHeader {
		return http.StatusOK
	}
	return r.code
}

// Unwrap lets http.ResponseController reach the connection.
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
