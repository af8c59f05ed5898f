package fanout

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestDispatchAKeyThatHangsHoldsOnlyItsShare: key "a" has more work than
// every slot and its attempts hang; key "b"'s work is still claimed and
// attempted while they hang, and "a" never holds more than its share.
func TestDispatchAKeyThatHangsHoldsOnlyItsShare(t *testing.T) {
	slots := NewSlots(4, 2)
	hang := make(chan struct{})
	bDone := make(chan struct{})
	var mu sync.Mutex
	queue := []string{"a", "a", "a", "a", "a", "a", "b", "b", "b"} // due in this order
	mostA, bSeen := 0, 0
	claim := func(free int, full []string) (int, func() (int, error), error) {
		mu.Lock()
		defer mu.Unlock()
		var kept []string
		for i := 0; i < len(queue) && len(kept) < free; {
			if k := queue[i]; !slices.Contains(full, k) && slots.Take(k) {
				kept = append(kept, k)
				queue = slices.Delete(queue, i, i+1)
				continue
			}
			i++
		}
		if n := slots.byKeyOf("a"); n > mostA {
			mostA = n
		}
		if len(kept) == 0 {
			return 0, nil, nil
		}
		return len(kept), func() (int, error) {
			var wg sync.WaitGroup
			for _, k := range kept {
				wg.Go(func() {
					defer slots.Give(k)
					if k == "a" {
						<-hang
						return
					}
					mu.Lock()
					if bSeen++; bSeen == 3 {
						close(bDone)
					}
					mu.Unlock()
				})
			}
			wg.Wait()
			return len(kept), nil
		}, nil
	}
	done := make(chan int)
	go func() {
		n, err := Dispatch(context.Background(), slots, time.Millisecond, claim)
		if err != nil {
			t.Error(err)
		}
		done <- n
	}()
	<-bDone // with "a" still hanging: else this blocks until the test times out
	close(hang)
	if n := <-done; n != 9 {
		t.Errorf("Dispatch attempted %d, want 9", n)
	}
	if mostA > 2 {
		t.Errorf(`"a" held %d slots, more than its share of 2`, mostA)
	}
}

// byKeyOf is how many slots key holds.
func (s *Slots) byKeyOf(key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[key]
}
