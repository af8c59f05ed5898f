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
