package client

// client.gen.go is what oapi-codegen (pinned in go.mod as a tool) makes of
// the service's openapi.yaml; TestGeneratedCodeIsCurrent fails when it is
// not what the document produces today.
//
//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../httpapi/openapi.yaml
