package httpapi

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"gopkg.in/yaml.v3"
)

// TestOpenAPIDocumentsEveryRoute fails when a route of the table is missing
// from openapi.yaml, or the document describes an operation the table lacks.
func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	var routed, documented []string
	for _, rt := range (&server{}).routes() {
		routed = append(routed, rt.method+" "+rt.path)
	}
	for path, item := range doc.Paths {
		for method := range item {
			if method != "parameters" {
				documented = append(documented, strings.ToUpper(method)+" "+path)
			}
		}
	}
	if diff := cmp.Diff(routed, documented, cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
		t.Errorf("route table (-) and openapi.yaml (+) differ:\n%s", diff)
	}
}

// TestOpenAPIRefsResolve: every $ref names a component that exists.
func TestOpenAPIRefsResolve(t *testing.T) {
	var doc map[string]any
	if err := yaml.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, child := range v {
				if ref, ok := child.(string); ok && k == "$ref" {
					if !resolves(doc, ref) {
						t.Errorf("$ref %q does not resolve", ref)
					}
				}
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(doc)
}

func resolves(doc map[string]any, ref string) bool {
	var node any = doc
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return false
		}
		if node, ok = m[part]; !ok {
			return false
		}
	}
	return true
}

// TestOpenAPIRoles: each operation of the organisation API names in
// x-role the role its access column in the route table needs, and
// declares the 403 a role that does not permit it gets; the others name
// none.
func TestOpenAPIRoles(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(openAPI, &doc); err != nil {
		t.Fatalf("openapi.yaml: %v", err)
	}
	for _, rt := range (&server{}).routes() {
		op, _ := doc.Paths[rt.path][strings.ToLower(rt.method)].(map[string]any)
		role, _ := op["x-role"].(string)
		responses, _ := op["responses"].(map[string]any)
		want, isRole := rt.access.role()
		if role != string(want) {
			t.Errorf("%s %s: x-role %q, the route table's access %q", rt.method, rt.path, role, rt.access)
		}
		if _, declared := responses["403"]; declared != isRole {
			t.Errorf("%s %s: 403 declared %v, the route takes a role %v", rt.method, rt.path, declared, isRole)
		}
	}
}
