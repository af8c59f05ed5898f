package postgres

import (
	"os"
	"strings"
	"testing"
)

// TestSessionSettings: the service's sessions run without JIT and with a
// statement timeout (openDB), migrations without the timeout, and a URL's
// own setting wins over each default.
func TestSessionSettings(t *testing.T) {
	url := os.Getenv("DISBURSE_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("DISBURSE_TEST_POSTGRES_URL is not set")
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct {
		url, timeout, setting, want string
	}{
		{url, defaultStatementTimeout, "jit", "off"},
		{url + sep + "jit=on", defaultStatementTimeout, "jit", "on"},
		{url, defaultStatementTimeout, "statement_timeout", "1min"},
		{url, "", "statement_timeout", "0"},
		{url + sep + "statement_timeout=5s", defaultStatementTimeout, "statement_timeout", "5s"},
	} {
		db, err := openDB(t.Context(), c.url, c.timeout)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := db.QueryRowContext(t.Context(), "SHOW "+c.setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != c.want {
			t.Errorf("%s with %s (default timeout %q) = %q, want %q", c.setting, c.url, c.timeout, got, c.want)
		}
	}
}

// TestPlanEachRun: a statement run with PlanEachRun's args leaves no
// prepared statement in the session, however often it runs, so
// PostgreSQL plans it with its values each time; the same statement run
// plainly is prepared once and kept (and after five runs may be planned
// once for all values).
func TestPlanEachRun(t *testing.T) {
	url := os.Getenv("DISBURSE_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("DISBURSE_TEST_POSTGRES_URL is not set")
	}
	ctx := t.Context()
	db, err := openDB(ctx, url, defaultStatementTimeout)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one session: prepared statements are per session
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	prepared := func(query string) int {
		var n int
		if err := conn.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements WHERE statement = $1`, query).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, c := range []struct {
		name         string
		plan         func(args ...any) []any
		wantPrepared int
	}{
		{"PlanEachRun", Engine{}.PlanEachRun, 0},
		{"plain", func(args ...any) []any { return args }, 1},
	} {
		query := `SELECT count(*) FROM pg_class WHERE relname = ANY(CAST($1 AS TEXT[])) -- ` + c.name
		for range 7 {
			var n int
			if err := conn.QueryRowContext(ctx, query, c.plan([]string{"pg_class", "pg_type"})...).Scan(&n); err != nil || n != 2 {
				t.Fatalf("%s: %d, %v; want 2", c.name, n, err)
			}
		}
		if got := prepared(query); got != c.wantPrepared {
			t.Errorf("%s: %d prepared statements of the query, want %d", c.name, got, c.wantPrepared)
		}
	}
}
