package httpapi_test

import (
	"context"
	"io/fs"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/disburse/disburse/sqlite"
)

// rawExecer runs one raw statement, as sqlstore.Store does for tests.
type rawExecer interface {
	ExecRaw(ctx context.Context, query string, args ...any) error
}

// TestReadyz: ready on a migrated database; 503 unavailable with
// Retry-After once its last migration is undone (as goose down would leave
// goose's table), while /healthz still answers 200; ready again once it is
// applied again.
func TestReadyz(t *testing.T) {
	eachStore(t, func(t *testing.T, open opener) {
		h := startDefaultOn(t, open)
		if got := ok[map[string]any](t, h.do("GET", "/readyz", "", nil), 200); got["status"] != "ok" {
			t.Errorf("readyz = %v", got)
		}
		raw := h.svc.Store.(rawExecer)
		ctx := t.Context()
		if err := raw.ExecRaw(ctx, `DELETE FROM goose_db_version WHERE version_id = (SELECT MAX(version_id) FROM goose_db_version)`); err != nil {
			t.Fatal(err)
		}
		r := h.do("GET", "/readyz", "", nil)
		problem(t, r, 503, "unavailable")
		if r.header.Get("Retry-After") == "" {
			t.Errorf("503 without Retry-After")
		}
		if got := ok[map[string]any](t, h.do("GET", "/healthz", "", nil), 200); got["status"] != "ok" {
			t.Errorf("healthz with the schema behind = %v", got)
		}
		// Put the record back: the highest migration the build embeds.
		last := highestMigration(t)
		if err := raw.ExecRaw(ctx, `INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)`, last, true); err != nil {
			t.Fatal(err)
		}
		ok[map[string]any](t, h.do("GET", "/readyz", "", nil), 200)
	})
}

// highestMigration is the last migration's number, the same on both engines.
func highestMigration(t *testing.T) int64 {
	names, err := fs.Glob(sqlite.Migrations(), "*.sql")
	if err != nil || len(names) == 0 {
		t.Fatalf("migrations: %v %v", names, err)
	}
	v, err := goose.NumericComponent(names[len(names)-1])
	if err != nil {
		t.Fatal(err)
	}
	return v
}
