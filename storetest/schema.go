package storetest

import (
	"strings"
	"testing"

	"github.com/disburse/disburse"
)

// testSchemaCurrent: a freshly migrated store is current, and so is one a
// newer release has migrated further (a migration this build does not
// know); one whose last migration is undone in goose's table is behind,
// and refused with a reason.
func testSchemaCurrent(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	if err := s.SchemaCurrent(ctx); err != nil {
		t.Fatalf("SchemaCurrent on a migrated store: %v", err)
	}
	raw, ok := s.(RawExecer)
	if !ok {
		t.Skip("the store runs no raw statements")
	}
	const unknown = 999999999
	if err := raw.ExecRaw(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)`, unknown, true); err != nil {
		t.Fatalf("record an unknown migration: %v", err)
	}
	if err := s.SchemaCurrent(ctx); err != nil {
		t.Errorf("SchemaCurrent with a newer release's migration applied = %v, want nil: an older replica stays ready", err)
	}
	// Undo the unknown one and then the last real one, as goose down does.
	for range 2 {
		if err := raw.ExecRaw(ctx, `DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`); err != nil {
			t.Fatalf("undo a migration: %v", err)
		}
	}
	if err := s.SchemaCurrent(ctx); err == nil || !strings.Contains(err.Error(), "behind") {
		t.Errorf("SchemaCurrent with the last migration undone = %v, want a schema behind", err)
	}
}
