// Package sqlitetest gives each test a migrated SQLite file of its own,
// cheaply: the migrations run once per version of them, into a template
// file in the system's temporary directory named by their hash (as pgtest
// names its template database), and each test copies it. Running the
// migrations was most of what opening a test's store cost.
//
// It takes the migrations and the function that runs them rather than
// importing package sqlite, so that sqlite's own tests can use it too.
package sqlitetest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/disburse/disburse/internal/fshash"
)

// templates holds each template's bytes, by the hash of its migrations,
// once a test of this binary has read it.
var templates struct {
	sync.Mutex
	bytes map[string][]byte
}

// Path returns the path of a SQLite file that migrate brought to the
// latest of migrations, in tb's temporary directory: removed when tb
// ends, and no other test's.
func Path[M any](tb testing.TB, migrations fs.FS, migrate func(context.Context, string) (M, error)) string {
	tb.Helper()
	b, err := template(migrations, func(path string) error { _, err := migrate(context.Background(), path); return err })
	if err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	path := filepath.Join(tb.TempDir(), "disburse.db")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		tb.Fatalf("sqlitetest: %v", err)
	}
	return path
}

// template returns the template's bytes for migrations, building it if no
// test binary has.
func template(migrations fs.FS, migrate func(path string) error) ([]byte, error) {
	hash, err := fshash.Of("", migrations)
	if err != nil {
		return nil, err
	}
	templates.Lock()
	defer templates.Unlock()
	if b, ok := templates.bytes[hash]; ok {
		return b, nil
	}
	name := filepath.Join(os.TempDir(), "disburse-sqlite-template-"+hash+".db")
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		err = build(name, migrate)
		if err == nil {
			b, err = os.ReadFile(name)
		}
	}
	if err != nil {
		return nil, err
	}
	if templates.bytes == nil {
		templates.bytes = map[string][]byte{}
	}
	templates.bytes[hash] = b
	return b, nil
}

// build migrates a new file and renames it to name once complete, so that
// a binary killed halfway, or two building at once, leave no
// half-migrated template behind.
func build(name string, migrate func(path string) error) error {
	dir, err := os.MkdirTemp(filepath.Dir(name), "disburse-sqlite-template-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "template.db")
	if err := migrate(path); err != nil {
		return fmt.Errorf("migrate the template: %w", err)
	}
	// Closing the last connection checkpoints the WAL into the file and
	// removes it: the file alone is the database.
	if _, err := os.Stat(path + "-wal"); err == nil {
		return errors.New("the template's WAL outlived its migration")
	}
	return os.Rename(path, name)
}
