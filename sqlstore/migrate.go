package sqlstore

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/pressly/goose/v3"
)

// Migrated is what one run of an engine's migrations did.
type Migrated struct {
	Applied []Migration // in the order they ran; none when the schema was current
	// Version is the database's version afterwards, the highest migration
	// recorded in goose's table; Latest the highest this build embeds.
	// Version above Latest: a newer build migrated the database
	// (docs/operations.md "Upgrading a fleet").
	Version, Latest int64
}

// Migration is one goose migration: its number and the rest of its file's
// name (00017_held_expression.sql is 17, "held_expression").
type Migration struct {
	Version int64
	Name    string
}

// Migrate applies p's pending migrations and says which, and where the
// database stands afterwards. It is the one place both engines run goose.
func Migrate(ctx context.Context, p *goose.Provider) (Migrated, error) {
	results, err := p.Up(ctx)
	if err != nil {
		return Migrated{}, err
	}
	var m Migrated
	for _, r := range results {
		m.Applied = append(m.Applied, migrationOf(r.Source))
	}
	if m.Version, err = p.GetDBVersion(ctx); err != nil {
		return Migrated{}, fmt.Errorf("schema version: %w", err)
	}
	for _, s := range p.ListSources() {
		m.Latest = max(m.Latest, s.Version)
	}
	return m, nil
}

func migrationOf(s *goose.Source) Migration {
	name := strings.TrimSuffix(path.Base(s.Path), ".sql")
	_, name, _ = strings.Cut(name, "_")
	return Migration{Version: s.Version, Name: name}
}
