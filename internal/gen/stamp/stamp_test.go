package stamp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStampFollowsItsInputs(t *testing.T) {
	dir := t.TempDir()
	doc, mod := filepath.Join(dir, "doc.yaml"), filepath.Join(dir, "go.mod")
	write := func(name, content string) {
		t.Helper()
		if err := os.WriteFile(name, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(doc, "a: 1\n")
	write(mod, "module m\n\nrequire (\n\texample.com/gen v1.0.0\n\texample.com/other v1.0.0\n)\n")
	stampOf := func() string {
		t.Helper()
		s, err := Of(doc, mod+":example.com/gen")
		if err != nil {
			t.Fatal(err)
		}
		return string(s)
	}
	first := stampOf()
	if lines := strings.Count(first, "\n"); lines != 2 {
		t.Fatalf("stamp has %d lines, want one a file:\n%s", lines, first)
	}
	write(mod, "module m\n\nrequire (\n\texample.com/gen v1.0.0\n\texample.com/other v1.1.0\n)\n")
	if stampOf() != first {
		t.Error("another dependency's version changed the stamp")
	}
	write(mod, "module m\n\nrequire (\n\texample.com/gen v1.1.0\n\texample.com/other v1.1.0\n)\n")
	if stampOf() == first {
		t.Error("the generator's version did not change the stamp")
	}
	write(doc, "a: 2\n")
	if _, err := Of(doc, mod+":example.com/missing"); err == nil {
		t.Error("a module go.mod does not require was stamped")
	}
}
