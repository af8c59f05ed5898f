package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"

	"modernc.org/sqlite"
)

// Backup writes a consistent copy of the SQLite database at path to the
// new file to, while the service may be writing to it: VACUUM INTO reads
// one snapshot, as any read does in WAL mode, so the copy holds every
// transaction committed before it began and none after, and it needs no
// -wal file beside it. It refuses a file that exists (it never overwrites
// a backup) and a database that does not (opening would create one).
func Backup(ctx context.Context, path, to string) error {
	if _, err := os.Stat(path); err != nil {
		return fmt.Errorf("sqlite: backup: the database: %w", err)
	}
	switch _, err := os.Lstat(to); {
	case err == nil:
		return fmt.Errorf("sqlite: backup: %s exists; choose a new file", to)
	case !errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("sqlite: backup: %w", err)
	}
	// Not a reader's connection: query_only refuses VACUUM INTO, though it
	// only reads the database. It takes no write lock on it, so the
	// service's writer does not wait for the copy.
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	db := sql.OpenDB(connector{dsn: path + "?" + q.Encode(), driver: &sqlite.Driver{}})
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, to); err != nil {
		os.Remove(to) // what a failed copy left is no backup
		return fmt.Errorf("sqlite: backup to %s: %w", to, err)
	}
	return nil
}
