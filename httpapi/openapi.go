package httpapi

import (
	_ "embed"
	"net/http"
	"strings"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/internal/apiversion"
)

// openAPI documents every route of the table in server.go in the first
// version; openAPI20261201 in version 2026-12-01 (docs/versioning.md).
// Tests keep both in step with the table and the answers.
//
//go:embed openapi.yaml
var openAPI []byte

//go:embed openapi-2026-12-01.yaml
var openAPI20261201 []byte

// openAPIs is each version's document.
var openAPIs = map[string][]byte{apiversion.First: openAPI, apiversion.V20261201: openAPI20261201}

// serveOpenAPI serves the API's description: the first version's, or
// ?version='s. It needs no credentials.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) error {
	version := apiversion.First
	if q := r.URL.Query(); q.Has("version") {
		version = q.Get("version")
	}
	doc, ok := openAPIs[version]
	if !ok {
		return disburse.Invalid("Version", version, "version must be one of "+strings.Join(apiversion.All, ", "))
	}
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(doc)
	return nil
}
