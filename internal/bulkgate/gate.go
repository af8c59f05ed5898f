// Package bulkgate admits at most a few pieces of bulk work at once in one
// process, and lets the rest wait their turn, taking turns between keys
// (organisations) and, within a key, first come first served. The API
// and the portal pass the requests that add or submit many payments
// through the process's one gate (Admit), so that however many
// organisations send them at once, the process keeps CPU and database
// connections for the small requests, which never wait here
// (docs/operations.md, "Bulk work"; docs/benchmarks.md, "Many tenants at
// once").
package bulkgate

import (
	"context"
	"sync"
)

// Gate admits at most its limit of holders at once. The zero Gate is not
// usable: New makes one.
type Gate struct {
	mu     sync.Mutex
	limit  int
	held   int
	queues map[string][]*waiter // each key's waiters, oldest first
	turns  []string             // the keys with waiters, next to be served first
}

// waiter is one Acquire waiting for its turn; ready is closed when it is
// admitted.
type waiter struct {
	key      string
	ready    chan struct{}
	admitted bool
}

// New is a gate of limit holders at once; limit below 1 is 1.
func New(limit int) *Gate {
	return &Gate{limit: max(limit, 1), queues: map[string][]*waiter{}}
}

// Limit is how many holders the gate admits at once.
func (g *Gate) Limit() int { return g.limit }

// Acquire waits until the gate admits one more holder for key, or ctx
// ends (its error is then returned and nothing is held). release must be
// called once the work is done; a second call does nothing.
func (g *Gate) Acquire(ctx context.Context, key string) (release func(), err error) {
	w := g.enqueue(key)
	select {
	case <-w.ready:
		return g.releaser(), nil
	case <-ctx.Done():
		if g.withdraw(w) {
			return nil, ctx.Err()
		}
		// Admitted as ctx ended: the slot is ours, and handed on.
		g.release()
		return nil, ctx.Err()
	}
}

// Waiting is how many Acquires wait for their turn now (the metrics'
// gauge, and the tests').
func (g *Gate) Waiting() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	for _, q := range g.queues {
		n += len(q)
	}
	return n
}

// Held is how many holders the gate has admitted and not released.
func (g *Gate) Held() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}

// enqueue puts a waiter for key at the end of key's queue, admitting it at
// once when a slot is free and nobody waits before it.
func (g *Gate) enqueue(key string) *waiter {
	w := &waiter{key: key, ready: make(chan struct{})}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.queues[key]) == 0 {
		g.turns = append(g.turns, key)
	}
	g.queues[key] = append(g.queues[key], w)
	g.admit()
	return w
}

// releaser is release, once.
func (g *Gate) releaser() func() {
	var once sync.Once
	return func() { once.Do(g.release) }
}

// release frees a slot and admits whoever's turn is next.
func (g *Gate) release() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.held--
	g.admit()
}

// admit fills the free slots: each goes to the oldest waiter of the key
// whose turn it is, and that key, if more of its waiters remain, goes to
// the back of the turns. One organisation's many requests thus wait
// behind one request of each other organisation that waits, not behind
// all of its own. g.mu is held.
func (g *Gate) admit() {
	for g.held < g.limit && len(g.turns) > 0 {
		key := g.turns[0]
		g.turns = g.turns[1:]
		q := g.queues[key]
		w := q[0]
		if len(q) == 1 {
			delete(g.queues, key)
		} else {
			g.queues[key] = q[1:]
			g.turns = append(g.turns, key)
		}
		w.admitted = true
		g.held++
		close(w.ready)
	}
}

// withdraw takes w out of its queue if it has not been admitted, and
// reports whether it was still waiting.
func (g *Gate) withdraw(w *waiter) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if w.admitted {
		return false
	}
	q := g.queues[w.key]
	for i, other := range q {
		if other == w {
			q = append(q[:i:i], q[i+1:]...)
			break
		}
	}
	if len(q) > 0 {
		g.queues[w.key] = q
		return true
	}
	delete(g.queues, w.key)
	for i, key := range g.turns {
		if key == w.key {
			g.turns = append(g.turns[:i:i], g.turns[i+1:]...)
			break
		}
	}
	return true
}
