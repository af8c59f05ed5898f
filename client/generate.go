package client

// client.gen.go is what oapi-codegen (pinned in go.mod as a tool) makes of
// the service's newest document, openapi-2026-12-01.yaml (the client pins
// that version: Version, docs/versioning.md), and client.gen.sha256 what
// it was made from. TestGeneratedCodeIsCurrent fails when the stamp no longer matches
// the files, and in the long suite when the file is not what the document
// produces today (building oapi-codegen is most of a fresh test run's
// time, so the default run checks the stamp alone).
//
//go:generate go tool oapi-codegen -config oapi-codegen.yaml ../httpapi/openapi-2026-12-01.yaml
//go:generate go run github.com/disburse/disburse/internal/gen stamp client.gen.sha256 ../httpapi/openapi-2026-12-01.yaml oapi-codegen.yaml client.gen.go ../go.mod:github.com/oapi-codegen/oapi-codegen/v2
