// Package stamp records what a generated file was made from, so that a
// quick test can tell it is current without running its generator: the
// SHA-256 of each input and of the output, one line each. A generator too
// slow to build in every test run (oapi-codegen, for the client) writes a
// stamp beside its output; the test compares the stamp with the files as
// they are, and the long suite runs the generator itself.
package stamp

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"
)

// Of returns the stamp of the files named, in order. A name of the form
// "go.mod:MODULE" stands for the line of go.mod that requires MODULE, so
// that the stamp follows the generator's version and not every other
// dependency's.
func Of(names ...string) ([]byte, error) {
	var b bytes.Buffer
	for _, name := range names {
		content, err := contentOf(name)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "%x  %s\n", sha256.Sum256(content), name)
	}
	return b.Bytes(), nil
}

func contentOf(name string) ([]byte, error) {
	file, module, ok := strings.Cut(name, ":")
	if !ok {
		return os.ReadFile(name)
	}
	content, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(bytes.NewReader(content))
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) >= 2 && fields[0] == module {
			return []byte(fields[0] + " " + fields[1]), nil
		}
	}
	return nil, fmt.Errorf("stamp: %s requires no %s", file, module)
}
