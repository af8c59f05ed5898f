package bulkgate

import (
	"context"
	"errors"
	"testing"
)

// admitted reports which of ws have been admitted, by their keys, in ws's order.
func admitted(ws []*waiter) []string {
	var keys []string
	for _, w := range ws {
		select {
		case <-w.ready:
			keys = append(keys, w.key)
		default:
		}
	}
	return keys
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGateLimitsAndTakesTurns fills a gate of two with one organisation's
// requests, queues more of its own and one each of two others, and
// releases slot after slot: never more than two are held, and the others
// are served before the first organisation's third.
func TestGateLimitsAndTakesTurns(t *testing.T) {
	g := New(2)
	a1, a2 := g.enqueue("a"), g.enqueue("a")
	a3, a4 := g.enqueue("a"), g.enqueue("a")
	b1 := g.enqueue("b")
	a5 := g.enqueue("a")
	c1 := g.enqueue("c")
	b2 := g.enqueue("b")
	all := []*waiter{a1, a2, a3, a4, b1, a5, c1, b2}
	if got := admitted(all); !equal(got, []string{"a", "a"}) || g.Held() != 2 || g.Waiting() != 6 {
		t.Fatalf("at first: admitted %v, held %d, waiting %d; want a, a, 2 held, 6 waiting", got, g.Held(), g.Waiting())
	}
	// Each release admits one: the order of admission is the turns.
	var order []*waiter
	for range 6 {
		before := map[*waiter]bool{}
		for _, w := range all {
			before[w] = w.admitted
		}
		g.release()
		for _, w := range all {
			if w.admitted && !before[w] {
				order = append(order, w)
			}
		}
		if g.Held() != 2 {
			t.Fatalf("held %d after a release with waiters; want 2", g.Held())
		}
	}
	want := []*waiter{a3, b1, c1, a4, b2, a5}
	for i := range want {
		if i >= len(order) || order[i] != want[i] {
			t.Fatalf("admitted in order %v; want a3 b1 c1 a4 b2 a5", keysOf(order))
		}
	}
	g.release()
	g.release()
	if g.Held() != 0 || g.Waiting() != 0 {
		t.Fatalf("after every release: held %d, waiting %d", g.Held(), g.Waiting())
	}
}

func keysOf(ws []*waiter) []string {
	var keys []string
	for _, w := range ws {
		keys = append(keys, w.key)
	}
	return keys
}

// TestGateAcquireWithdrawsOnCancel: a request whose client went away while
// it waited leaves the queue, holds nothing, and the next is admitted in
// its place.
func TestGateAcquireWithdrawsOnCancel(t *testing.T) {
	g := New(1)
	release, err := g.Acquire(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := g.Acquire(ctx, "b"); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire with an ended context: %v; want context.Canceled", err)
	}
	if g.Waiting() != 0 || g.Held() != 1 {
		t.Fatalf("after the cancelled Acquire: waiting %d, held %d; want 0 and 1", g.Waiting(), g.Held())
	}
	c := g.enqueue("c")
	release()
	release() // a second call does nothing
	if got := admitted([]*waiter{c}); len(got) != 1 || g.Held() != 1 {
		t.Fatalf("after the release: admitted %v, held %d; want c, 1", got, g.Held())
	}
	g.release()
}

// TestGateWithdrawKeepsOthersTurns: a waiter withdrawn from the middle of
// its key's queue leaves that key's turn, and the others', as they were.
func TestGateWithdrawKeepsOthersTurns(t *testing.T) {
	g := New(1)
	first := g.enqueue("x")
	a1, a2, b1 := g.enqueue("a"), g.enqueue("a"), g.enqueue("b")
	if !g.withdraw(a1) || g.withdraw(first) {
		t.Fatal("withdraw: a waiting waiter must come out, an admitted one not")
	}
	g.release()
	if got := admitted([]*waiter{a1, a2, b1}); !equal(got, []string{"a"}) || !a2.admitted {
		t.Fatalf("after the release: admitted %v; want a's second", got)
	}
	g.release()
	if !b1.admitted {
		t.Fatal("b's turn did not come")
	}
	g.release()
	if New(0).Limit() != 1 {
		t.Fatal("a gate below 1 must admit 1")
	}
}
