package sqlstore

import "testing"

func TestRebindDollar(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"a = ? AND b = ?", "a = $1 AND b = $2"},
		{"x = '?' AND y = ?", "x = '?' AND y = $1"},
		{"x = 'it''s ?' AND y IN (?, ?)", "x = 'it''s ?' AND y IN ($1, $2)"},
	} {
		if got := RebindDollar(c.in); got != c.want {
			t.Errorf("RebindDollar(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
