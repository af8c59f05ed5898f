package httpapi

import (
	"regexp"
	"testing"
)

// TestZuluKnowsEveryDateTime: every member the document declares a
// DateTime is one zulu rewrites, so a new date-time member cannot be
// left without its Z in version 2026-12-01.
func TestZuluKnowsEveryDateTime(t *testing.T) {
	refs := regexp.MustCompile(`(?m)^\s+([A-Za-z]+): \{\$ref: "#/components/schemas/DateTime"`)
	found := refs.FindAllSubmatch(openAPI20261201, -1)
	if len(found) == 0 {
		t.Fatal("no DateTime member found in openapi-2026-12-01.yaml")
	}
	for _, m := range found {
		if !dateTimeMembers[string(m[1])] {
			t.Errorf("%s is a DateTime in the document, not in dateTimeMembers", m[1])
		}
	}
}

// TestZuluRewritesAcrossWrites: a date-time split between two writes
// still gains its Z; text shaped like one, and escaped quotes, do not.
func TestZuluRewritesAcrossWrites(t *testing.T) {
	in := `{"name":"2026-11-22T10:15:30.1234560","note":"a \"createdAt\":","createdAt":"2026-11-22T10:15:30.1234560","x":[{"at": "2026-11-22T10:15:30.1234560"}]}`
	want := `{"name":"2026-11-22T10:15:30.1234560","note":"a \"createdAt\":","createdAt":"2026-11-22T10:15:30.1234560Z","x":[{"at": "2026-11-22T10:15:30.1234560Z"}]}`
	for cut := range len(in) {
		var out []byte
		w := writerFunc(func(b []byte) (int, error) { out = append(out, b...); return len(b), nil })
		z := &zulu{}
		_, _ = z.write(w, []byte(in[:cut]))
		_, _ = z.write(w, []byte(in[cut:]))
		if string(out) != want {
			t.Fatalf("cut at %d:\n got %s\nwant %s", cut, out, want)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
