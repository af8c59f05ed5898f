package parallel

import (
	"strings"
	"sync/atomic"
	"testing"
)

func TestProtectTurnsPanicIntoError(t *testing.T) {
	if err := Protect(func() {}); err != nil {
		t.Fatalf("Protect of a plain func = %v", err)
	}
	err := Protect(func() { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "parallel_test.go") {
		t.Fatalf("Protect = %v, want the panic's value and its stack", err)
	}
}

func TestForCoversEveryIndexOnce(t *testing.T) {
	for _, n := range []int{0, 1, 999, 1000, 4321} {
		seen := make([]atomic.Int32, n)
		if err := For(n, 1000, func(from, to int) {
			for i := from; i < to; i++ {
				seen[i].Add(1)
			}
		}); err != nil {
			t.Fatal(err)
		}
		for i := range seen {
			if c := seen[i].Load(); c != 1 {
				t.Fatalf("n=%d: index %d called %d times", n, i, c)
			}
		}
	}
}

// A panic in one part, below or above the threshold, is an error and not
// the end of the process.
func TestForReturnsAPanic(t *testing.T) {
	for _, n := range []int{10, 5000} {
		err := For(n, 1000, func(from, to int) {
			if from <= n-1 && n-1 < to {
				panic("part bug")
			}
		})
		if err == nil || !strings.Contains(err.Error(), "part bug") {
			t.Errorf("n=%d: For = %v, want the panic", n, err)
		}
	}
}
