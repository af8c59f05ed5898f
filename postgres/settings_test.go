package postgres

import (
	"os"
	"strings"
	"testing"
)

// TestJITOffUnlessTheURLSaysSo: the service's sessions run without JIT
// (openDB), and a URL's own jit setting wins.
func TestJITOffUnlessTheURLSaysSo(t *testing.T) {
	url := os.Getenv("DISBURSE_TEST_POSTGRES_URL")
	if url == "" {
		t.Skip("DISBURSE_TEST_POSTGRES_URL is not set")
	}
	sep := "?"
	if strings.Contains(url, "?") {
		sep = "&"
	}
	for _, c := range []struct{ url, want string }{
		{url, "off"},
		{url + sep + "jit=on", "on"},
	} {
		db, err := openDB(t.Context(), c.url)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := db.QueryRowContext(t.Context(), "SHOW jit").Scan(&got); err != nil {
			t.Fatal(err)
		}
		db.Close()
		if got != c.want {
			t.Errorf("jit with %s = %q, want %q", c.url, got, c.want)
		}
	}
}
