// Package fshash names a tree of files by its contents: the test helpers
// name their migrated templates (pgtest, sqlitetest) by the hash of the
// migrations, so that new migrations get a new template.
package fshash

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
)

// Of returns a short hash of the names and contents of the files in
// fsys, after prefix.
func Of(prefix string, fsys fs.FS) (string, error) {
	h := sha256.New()
	h.Write([]byte(prefix))
	err := fs.WalkDir(fsys, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := fs.ReadFile(fsys, path)
		fmt.Fprintf(h, "%s %d\n", path, len(b))
		h.Write(b)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("hash %s: %w", fsys, err)
	}
	return hex.EncodeToString(h.Sum(nil))[:16], nil
}
