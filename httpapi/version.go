package httpapi

import (
	"context"
	"net/http"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
)

// Dated versions (docs/versioning.md). A request names its version in
// Disburse-Version; without it, its organisation's default applies once
// s.org has authenticated it, and the first version where there is no
// organisation (the operator API, getToken). The version is decided here
// and in s.org, once; the few places that render differently ask
// versionOf: the date-times (version_zulu.go), the lists (version_pages.go)
// and the body's strictness (decode.go).

// versionHeader names the version of a request and of its answer.
const versionHeader = "Disburse-Version"

type versionKey struct{}

// requestVersion is the version a request is answered in.
type requestVersion struct {
	name  string
	named bool // the request named it in Disburse-Version
	// orgDefault is the organisation's default version, once s.org knows it.
	orgDefault string
}

// versionOf is r's version: the first for a request that did not pass
// through withVersion (a handler called by a test).
func versionOf(r *http.Request) string {
	if v, ok := r.Context().Value(versionKey{}).(*requestVersion); ok {
		return v.name
	}
	return apiversion.First
}

// since20261201 reports whether r is answered in version 2026-12-01 or
// a later one: Z times, keyset pages and strict bodies. Versions are
// dates, so their text sorts as they do.
func since20261201(r *http.Request) bool { return versionOf(r) >= apiversion.V20261201 }

// withVersion reads Disburse-Version: an unknown version is a 400 on it
// before anything is read or changed. Its answer names the version it
// is written in, in Disburse-Version, and in 2026-12-01 its date-times
// end in Z (versionWriter).
func (s *server) withVersion(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v := &requestVersion{name: apiversion.First}
		if named := r.Header.Values(versionHeader); len(named) > 0 {
			name := strings.TrimSpace(strings.Join(named, ","))
			if !apiversion.Known(name) {
				s.writeError(w, r, disburse.Invalid(versionHeader, name,
					"Disburse-Version must be a version of the API, YYYY-MM-DD: one of "+strings.Join(apiversion.All, ", ")))
				return
			}
			v.name, v.named = name, true
		}
		next.ServeHTTP(&versionWriter{ResponseWriter: w, v: v}, r.WithContext(context.WithValue(r.Context(), versionKey{}, v)))
	})
}

// adoptOrganisation is s.org's part: the organisation's default version
// answers a request that named none.
func adoptOrganisation(r *http.Request, orgDefault string) {
	v, ok := r.Context().Value(versionKey{}).(*requestVersion)
	if !ok || !apiversion.Known(orgDefault) {
		return
	}
	v.orgDefault = orgDefault
	if !v.named {
		v.name = orgDefault
	}
}

// organisationDefault is the version a new webhook endpoint gets when its
// request names none: the organisation's default (docs/versioning.md).
func organisationDefault(r *http.Request) string {
	if v, ok := r.Context().Value(versionKey{}).(*requestVersion); ok && v.orgDefault != "" {
		return v.orgDefault
	}
	return apiversion.First
}

// versionWriter writes Disburse-Version with the answer's status, by the
// version decided by then, and in 2026-12-01 a JSON answer's date-times
// with Z.
type versionWriter struct {
	http.ResponseWriter
	v     *requestVersion
	wrote bool
	zulu  *zulu // nil: written as is
}

func (w *versionWriter) WriteHeader(code int) {
	if !w.wrote && code >= 200 {
		w.wrote = true
		w.Header().Set(versionHeader, w.v.name)
		if w.v.name >= apiversion.V20261201 && isJSON(w.Header().Get("Content-Type")) {
			w.zulu = &zulu{}
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *versionWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.zulu == nil {
		return w.ResponseWriter.Write(b)
	}
	return w.zulu.write(w.ResponseWriter, b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *versionWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Flush passes a streaming answer's flush on.
func (w *versionWriter) Flush() { _ = http.NewResponseController(w.ResponseWriter).Flush() }

func isJSON(contentType string) bool {
	return strings.HasPrefix(contentType, "application/json") || strings.HasPrefix(contentType, "application/problem+json")
}

// inVersion is a webhook body's rendering in version, the endpoint's.
func inVersion(version string) func([]byte, error) ([]byte, error) {
	return func(body []byte, err error) ([]byte, error) {
		if err != nil || version < apiversion.V20261201 {
			return body, err
		}
		return zuluJSON(body), nil
	}
}

// withAPIVersion is an organisation's or an endpoint's version as its
// answer shows it: in version 2026-12-01 alone, so that the first
// version's answers stay as they were.
func withAPIVersion(r *http.Request, version string) string {
	if since20261201(r) {
		return version
	}
	return ""
}
