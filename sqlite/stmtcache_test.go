package sqlite

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestStatementCache: a statement is prepared once per connection and run
// again from the cache; a failed run leaves it usable; the same text run
// while its rows are still open gets a statement of its own.
func TestStatementCache(t *testing.T) {
	ctx := t.Context()
	db, err := openDB(filepath.Join(t.TempDir(), "cache.db"), true, 1, defaultBusyTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	exec := func(query string, args ...any) error {
		_, err := conn.ExecContext(ctx, query, args...)
		return err
	}
	if err := exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)`); err != nil {
		t.Fatal(err)
	}
	const insert = `INSERT INTO t (k, v) VALUES (?, ?)`
	for k := range 5 {
		if err := exec(insert, k, "v"); err != nil {
			t.Fatal(err)
		}
	}
	if err := exec(insert, 1, "again"); err == nil {
		t.Fatal("a duplicate key: no error")
	}
	if err := exec(insert, 5, "after the failure"); err != nil {
		t.Fatalf("the statement after a failed run: %v", err)
	}

	const list = `SELECT k FROM t WHERE k >= ? ORDER BY k`
	outer, err := conn.QueryContext(ctx, list, 0)
	if err != nil {
		t.Fatal(err)
	}
	var pairs, outers int
	for outer.Next() {
		if outers++; outers > 6 {
			t.Fatal("the outer query does not end: one statement serves both")
		}
		var k int
		if err := outer.Scan(&k); err != nil {
			t.Fatal(err)
		}
		// The same text while outer's rows are open.
		inner, err := conn.QueryContext(ctx, list, k)
		if err != nil {
			outer.Close() // else the deferred closes wait for it
			t.Fatalf("the same query while its rows are open: %v", err)
		}
		for inner.Next() {
			pairs++
		}
		if err := inner.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := outer.Close(); err != nil {
		t.Fatal(err)
	}
	if want := 6 + 5 + 4 + 3 + 2 + 1; pairs != want {
		t.Errorf("nested queries counted %d pairs, want %d", pairs, want)
	}

	var cached []string
	err = conn.Raw(func(dc any) error {
		for query := range dc.(*cachingConn).stmts {
			cached = append(cached, query)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, query := range []string{insert, list} {
		if !slices.Contains(cached, query) {
			t.Errorf("%q is not cached; cached: %q", query, cached)
		}
	}
	var n int
	if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM t`).Scan(&n); err != nil || n != 6 {
		t.Errorf("rows = %d, %v; want 6", n, err)
	}
}
