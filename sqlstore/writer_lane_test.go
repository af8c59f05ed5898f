package sqlstore

import (
	"context"
	"errors"
	"testing"
	"testing/synctest"
	"time"

	"github.com/disburse/disburse/internal/bulkgate"
)

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// TestWriterLaneSmallWritesFirst: with the writer busy and bulk work
// waiting, small writes that come later go first, each after the
// transaction under way, until smallBurst of them have passed it.
func TestWriterLaneSmallWritesFirst(t *testing.T) {
	l := &writerLane{}
	if !isClosed(l.enqueue(false)) {
		t.Fatal("a free writer must be taken at once")
	}
	bulk := l.enqueue(true)
	small := make([]chan struct{}, smallBurst+1)
	for i := range small {
		small[i] = l.enqueue(false)
	}
	for i := range smallBurst {
		l.release()
		if !isClosed(small[i]) || isClosed(bulk) {
			t.Fatalf("release %d: small write %d admitted %v, bulk %v; want the small one only", i+1, i, isClosed(small[i]), isClosed(bulk))
		}
	}
	l.release()
	if !isClosed(bulk) || isClosed(small[smallBurst]) {
		t.Fatal("after smallBurst small writes the waiting bulk one must go")
	}
	l.release()
	if !isClosed(small[smallBurst]) {
		t.Fatal("the last small write never went")
	}
	l.release()
	if l.busy || len(l.small)+len(l.bulk) != 0 {
		t.Fatalf("after every release: busy %v, %d small and %d bulk waiting", l.busy, len(l.small), len(l.bulk))
	}
}

// TestWriterLaneAcquire: a bulk context waits behind a small one; an
// Acquire whose context ends leaves the queue and holds nothing.
func TestWriterLaneAcquire(t *testing.T) {
	l := &writerLane{}
	release, err := l.acquire(bulkgate.WithBulk(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := l.acquire(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("acquire with an ended context: %v", err)
	}
	if len(l.small)+len(l.bulk) != 0 || !l.busy {
		t.Fatal("the cancelled acquire must leave the queue and the writer with its holder")
	}
	b := l.enqueue(true)
	s := l.enqueue(false)
	release()
	if !isClosed(s) || isClosed(b) {
		t.Fatal("the small write must go before the bulk one queued before it")
	}
	l.release()
	if !isClosed(b) {
		t.Fatal("the bulk write never went")
	}
	l.release()
}

// TestWriterLaneCountsWaits: a write that finds the writer free is no
// wait; one that finds it taken is counted with the time it waited, as
// database/sql counts its pool's waits (Store.WriterWaits).
func TestWriterLaneCountsWaits(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		l := &writerLane{}
		s := &Store{lane: l}
		release, err := l.acquire(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if n, d := s.WriterWaits(); n != 0 || d != 0 {
			t.Fatalf("a free writer: %d waits, %v; want none", n, d)
		}
		admitted := make(chan struct{})
		go func() {
			next, err := l.acquire(t.Context())
			if err == nil {
				next()
			}
			close(admitted)
		}()
		synctest.Wait() // the second write waits in the lane
		time.Sleep(30 * time.Millisecond)
		release()
		<-admitted
		if n, d := s.WriterWaits(); n != 1 || d != 30*time.Millisecond {
			t.Fatalf("after one wait of 30ms: %d waits, %v", n, d)
		}
	})
}
