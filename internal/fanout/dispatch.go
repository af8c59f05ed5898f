package fanout

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// Slots counts the attempts one process has in flight: at most total in
// all, and at most perKey for one key (a webhook endpoint), so that a key
// whose attempts hang holds its own slots and no others. perKey 0 or
// above total is no limit of its own.
type Slots struct {
	mu     sync.Mutex
	cond   *sync.Cond // signalled when a slot is given back
	total  int
	perKey int
	busy   int
	byKey  map[string]int
	freed  chan struct{}
}

// NewSlots returns total slots (at least one), perKey of them at most for
// one key.
func NewSlots(total, perKey int) *Slots {
	total = max(total, 1)
	if perKey <= 0 || perKey > total {
		perKey = total
	}
	s := &Slots{total: total, perKey: perKey, byKey: map[string]int{}, freed: make(chan struct{}, 1)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// Free is how many slots no attempt holds.
func (s *Slots) Free() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total - s.busy
}

// Full lists the keys that hold all the slots one key may: a claim leaves
// their rows where they are.
func (s *Slots) Full() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k, n := range s.byKey {
		if n >= s.perKey {
			out = append(out, k)
		}
	}
	return out
}

// Take holds a slot for key, unless every slot is held or key holds its
// share.
func (s *Slots) Take(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.take(key)
}

func (s *Slots) take(key string) bool {
	if s.busy >= s.total || s.byKey[key] >= s.perKey {
		return false
	}
	s.busy++
	s.byKey[key]++
	return true
}

// Wait holds a slot for key as soon as one is free and key is under its
// share; false, holding nothing, once ctx ends first.
func (s *Slots) Wait(ctx context.Context, key string) bool {
	stop := context.AfterFunc(ctx, func() {
		s.mu.Lock()
		s.cond.Broadcast()
		s.mu.Unlock()
	})
	defer stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	for !s.take(key) {
		if ctx.Err() != nil {
			return false
		}
		s.cond.Wait()
	}
	return true
}

// Give hands back a slot key held.
func (s *Slots) Give(key string) {
	s.mu.Lock()
	s.busy--
	if s.byKey[key]--; s.byKey[key] <= 0 {
		delete(s.byKey, key)
	}
	s.cond.Broadcast()
	s.mu.Unlock()
	select {
	case s.freed <- struct{}{}:
	default:
	}
}

// Unwritten bounds one process's attempts that have started and whose
// outcome is not yet written: the attempts in flight and the outcomes
// waiting for their write, which are what a process that dies sends
// again. It holds twice the process's concurrency, so that attempts go on
// while the outcomes before them are written (a write may wait for the
// database, behind other writers) without their number growing past it.
type Unwritten struct{ places *Slots }

// NewUnwritten returns the bound of a process with concurrency attempts
// in flight at most.
func NewUnwritten(concurrency int) Unwritten {
	return Unwritten{NewSlots(2*max(concurrency, 1), 0)}
}

// Wait takes a place for an attempt about to start; false, taking
// nothing, once ctx ends first.
func (u Unwritten) Wait(ctx context.Context) bool { return u.places.Wait(ctx, "") }

// Give hands back a place whose attempt did not start.
func (u Unwritten) Give() { u.places.Give("") }

// Written hands back the places of n outcomes handed to a record, if that
// record settled them (Settled).
func (u Unwritten) Written(n int, settled bool) {
	if settled {
		for range n {
			u.places.Give("")
		}
	}
}

// Dispatch claims work while there are free slots and runs each claim on
// its own, without waiting for the claims before it: an attempt that
// hangs holds its slot and nothing else. claim is given how many slots are
// free and which keys are full; it claims rows of other keys and returns
// how many, and the run that attempts them, each once it holds a slot of
// its key (Slots.Wait), gives the slot back when the attempt ends, and
// says how many it attempted. Rows of a key at its share wait in their
// run, holding no slot, while later claims take other keys' rows.
// Dispatch claims again at once after a claim that found work, when half
// the slots are free again, and every poll while runs are going (for work
// that fell due meanwhile). It returns, with how many rows were
// attempted, once a claim finds nothing and no run is left, or once ctx
// ends and the runs have ended; a run's error stops new claims.
func Dispatch(ctx context.Context, slots *Slots, poll time.Duration,
	claim func(free int, full []string) (n int, run func() (int, error), err error)) (int, error) {
	var runs sync.WaitGroup
	var running atomic.Int64
	var mu sync.Mutex
	var errs []error
	failed := func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(errs) > 0
	}
	done := make(chan struct{}, 1)
	var attempted atomic.Int64
	ticker := time.NewTicker(poll)
	defer ticker.Stop()
	eager := true // claim whatever is free: at the start, after a claim that found work, at a poll
	for ctx.Err() == nil && !failed() {
		if free := slots.Free(); free > 0 && (eager || free >= max(slots.total/2, 1)) {
			n, run, err := claim(free, slots.Full())
			if err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
				break
			}
			if n > 0 {
				running.Add(1)
				runs.Go(func() {
					defer func() {
						running.Add(-1)
						select {
						case done <- struct{}{}:
						default:
						}
					}()
					n, err := run()
					attempted.Add(int64(n))
					if err != nil {
						mu.Lock()
						errs = append(errs, err)
						mu.Unlock()
					}
				})
				eager = true
				continue
			}
		}
		if running.Load() == 0 {
			break
		}
		eager = false
		select {
		case <-ctx.Done():
		case <-slots.freed:
		case <-done:
		case <-ticker.C:
			eager = true
		}
	}
	runs.Wait()
	mu.Lock()
	defer mu.Unlock()
	return int(attempted.Load()), errors.Join(errs...)
}
