package sqlstore

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse/internal/bulkgate"
)

// writerLane is the one writer of an engine that has one (SQLite), taken
// before its connection, so that who goes next is chosen here and not at
// random among database/sql's waiters: small writes (a POST /batches, an
// Idempotency-Key's claim, a worker's outcome) before bulk work's (an add,
// a submit: bulkgate.IsBulk), so that a small write waits for the
// transaction under way, never for the bulk ones queued behind it
// (docs/operations.md, "Bulk work"). So that bulk work is never starved,
// after smallBurst small writes in a row while bulk work waits, the bulk
// goes.
type writerLane struct {
	mu          sync.Mutex
	busy        bool
	small, bulk []chan struct{} // waiters, oldest first
	inARow      int             // small writes admitted while bulk waited

	// waits counts the writes that found the writer taken, and waited
	// their time: the waits database/sql's pool counts for a store without
	// a lane, which this one's pool no longer sees (WriterWaits).
	waits, waited atomic.Int64
}

// smallBurst is how many small writes may pass a waiting bulk one.
const smallBurst = 16

// OneWriter makes the store take its writer lane before a write
// transaction's connection: for an engine with one writer.
func OneWriter() Option { return func(s *Store) { s.lane = &writerLane{} } }

// HasOneWriter reports whether the store was opened with OneWriter: all
// its writes pass one connection, as SQLite's do.
func (s *Store) HasOneWriter() bool { return s.lane != nil }

// WriterWaits is how many writes found the one writer taken and how long
// they waited for it in all, since the store opened: zero without a
// lane, whose waits are its write pool's (Pools).
func (s *Store) WriterWaits() (int64, time.Duration) {
	if s.lane == nil {
		return 0, 0
	}
	return s.lane.waits.Load(), time.Duration(s.lane.waited.Load())
}

// acquire waits for the writer; release must be called once the
// transaction's connection is back in its pool.
func (l *writerLane) acquire(ctx context.Context) (release func(), err error) {
	ready := l.enqueue(bulkgate.IsBulk(ctx))
	select {
	case <-ready:
		return l.release, nil // the writer was free
	default:
	}
	start := time.Now()
	defer func() {
		l.waits.Add(1)
		l.waited.Add(int64(time.Since(start)))
	}()
	select {
	case <-ready:
		return l.release, nil
	case <-ctx.Done():
		if l.withdraw(ready) {
			return nil, ctx.Err()
		}
		l.release() // handed the writer as ctx ended: hand it on
		return nil, ctx.Err()
	}
}

func (l *writerLane) enqueue(bulk bool) chan struct{} {
	ready := make(chan struct{})
	l.mu.Lock()
	defer l.mu.Unlock()
	if bulk {
		l.bulk = append(l.bulk, ready)
	} else {
		l.small = append(l.small, ready)
	}
	l.next()
	return ready
}

func (l *writerLane) release() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.busy = false
	l.next()
}

// next hands a free writer to the next waiter: a small one first, unless
// smallBurst of them have passed a waiting bulk one. l.mu is held.
func (l *writerLane) next() {
	if l.busy {
		return
	}
	var ready chan struct{}
	switch {
	case len(l.small) > 0 && (len(l.bulk) == 0 || l.inARow < smallBurst):
		ready, l.small = l.small[0], l.small[1:]
		if len(l.bulk) > 0 {
			l.inARow++
		}
	case len(l.bulk) > 0:
		ready, l.bulk = l.bulk[0], l.bulk[1:]
		l.inARow = 0
	default:
		return
	}
	l.busy = true
	close(ready)
}

// withdraw takes ready out of its queue, and reports whether it was still
// waiting there.
func (l *writerLane) withdraw(ready chan struct{}) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, q := range []*[]chan struct{}{&l.small, &l.bulk} {
		for i, c := range *q {
			if c == ready {
				*q = append((*q)[:i:i], (*q)[i+1:]...)
				return true
			}
		}
	}
	return false
}
