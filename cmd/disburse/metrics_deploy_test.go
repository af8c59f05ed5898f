package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// The files in deploy/ that name series: Prometheus's alert rules and the
// Grafana dashboard (docs/operations.md, "Metrics").
const (
	alertRules = "../../deploy/prometheus/alerts.yml"
	dashboard  = "../../deploy/grafana/disburse.json"
)

// deployExpressions are the PromQL expressions of the alert rules and of
// the dashboard's panels and variables.
func deployExpressions(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile(alertRules)
	if err != nil {
		t.Fatal(err)
	}
	var rules struct {
		Groups []struct {
			Rules []struct {
				Expr string `yaml:"expr"`
			} `yaml:"rules"`
		} `yaml:"groups"`
	}
	if err := yaml.Unmarshal(raw, &rules); err != nil {
		t.Fatalf("%s: %v", alertRules, err)
	}
	var out []string
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			out = append(out, r.Expr)
		}
	}
	raw, err = os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var board any
	if err := json.Unmarshal(raw, &board); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				if s, ok := e.(string); ok && (k == "expr" || k == "query" && strings.Contains(s, "(")) {
					out = append(out, s)
				}
				walk(e)
			}
		case []any:
			for _, e := range v {
				walk(e)
			}
		}
	}
	walk(board)
	if len(out) < 10 {
		t.Fatalf("%d expressions in deploy/: the files were not read as they should be", len(out))
	}
	return out
}

// quoted is a PromQL string: label values and regexps, never a series.
var quoted = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)

// seriesName is a series this service serves: its own (disburse_), or the
// Go and process collectors' (go_, process_). Prometheus's own series
// (up) are not served by it and are left out. The names are taken with
// this regexp rather than Prometheus's PromQL parser, whose module is far
// larger than this check; label names inside braces (db_name) and strings
// never start with these prefixes once quoted strings are removed.
var seriesName = regexp.MustCompile(`\b(?:disburse|go|process)_[a-zA-Z0-9_]+\b`)

// deployedSeries lists every series the deploy/ files name, once each.
func deployedSeries(t *testing.T) []string {
	t.Helper()
	var names []string
	for _, expr := range deployExpressions(t) {
		names = append(names, seriesName.FindAllString(quoted.ReplaceAllString(expr, `""`), -1)...)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) < 20 {
		t.Fatalf("%d series named in deploy/: %v; the names were not taken as they should be", len(names), names)
	}
	return names
}

// TestDeployExpressionsParse: every expression of the dashboard is valid
// PromQL, by promtool (which .ci/run installs): written as recording
// rules, which `promtool check rules` parses. The alert rules are checked
// in .ci/run itself.
func TestDeployExpressionsParse(t *testing.T) {
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("promtool is not installed: .ci/run installs Debian's prometheus package")
		}
		t.Skip("promtool is not installed (Debian's prometheus package)")
	}
	var rules strings.Builder
	rules.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, expr := range deployExpressions(t) {
		if strings.HasPrefix(expr, "label_values(") {
			continue // Grafana's, for a variable: not PromQL
		}
		quotedExpr, _ := json.Marshal(expr) // a JSON string is a YAML string
		fmt.Fprintf(&rules, "      - record: dashboard:expr_%d\n        expr: %s\n", i, quotedExpr)
	}
	file := filepath.Join(t.TempDir(), "dashboard.yml")
	if err := os.WriteFile(file, []byte(rules.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(promtool, "check", "rules", file).CombinedOutput()
	if err != nil {
		t.Errorf("promtool check rules on the dashboard's expressions: %v\n%s", err, out)
	}
}
