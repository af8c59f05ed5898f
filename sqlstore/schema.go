package sqlstore

import (
	"context"
	"fmt"
	"io/fs"
	"slices"

	"github.com/pressly/goose/v3"
)

// SchemaCurrent reports whether the database's schema serves this build:
// every migration the engine embeds is recorded as applied in goose's
// table. A database that is behind lacks tables or columns the queries
// use, and the service should take no traffic (/readyz). One that is ahead
// was migrated by a newer release; every migration keeps the previous
// release running (docs/operations.md "Migrations"), so an older replica
// stays ready through a rolling upgrade.
func (s *Store) SchemaCurrent(ctx context.Context) error {
	want, err := migrationVersions(s.e.Migrations())
	if err != nil {
		return err
	}
	rows, err := s.read.QueryContext(ctx, `SELECT DISTINCT version_id FROM goose_db_version WHERE is_applied AND version_id > 0`)
	if err != nil {
		return s.unavailable(fmt.Errorf("sqlstore: schema version: %w", err))
	}
	var applied []int64
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			rows.Close()
			return fmt.Errorf("sqlstore: schema version: %w", err)
		}
		applied = append(applied, v)
	}
	if err := rows.Err(); err != nil {
		return s.unavailable(fmt.Errorf("sqlstore: schema version: %w", err))
	}
	for _, v := range want {
		if !slices.Contains(applied, v) {
			return fmt.Errorf("sqlstore: schema behind: migration %d is not applied", v)
		}
	}
	return nil
}

// migrationVersions lists the versions of the goose SQL files in fsys, by
// the number that starts each name, as goose itself reads them.
func migrationVersions(fsys fs.FS) ([]int64, error) {
	names, err := fs.Glob(fsys, "*.sql")
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migrations: %w", err)
	}
	versions := make([]int64, 0, len(names))
	for _, name := range names {
		v, err := goose.NumericComponent(name)
		if err != nil {
			return nil, fmt.Errorf("sqlstore: migration %s: %w", name, err)
		}
		versions = append(versions, v)
	}
	if len(versions) == 0 {
		return nil, fmt.Errorf("sqlstore: no migrations embedded")
	}
	return versions, nil
}
