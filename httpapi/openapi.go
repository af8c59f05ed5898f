package httpapi

import (
	_ "embed"
	"net/http"
)

// openAPI documents every route of the table in server.go; a test keeps the
// two in step.
//
//go:embed openapi.yaml
var openAPI []byte

// serveOpenAPI serves the API's description. It needs no credentials.
func serveOpenAPI(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "application/yaml")
	_, _ = w.Write(openAPI)
	return nil
}
