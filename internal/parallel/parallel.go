// Package parallel runs work on a request's path in goroutines without
// letting a panic in one of them end the process.
package parallel

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// Protect runs fn and returns a panic inside it as an error that carries
// the stack. Every goroutine started on a request's path runs under it: a
// panic there has no handler's recover above it and would end the process,
// where it should cost only that request a 500.
func Protect(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("disburse: panic: %v\n%s", r, debug.Stack())
		}
	}()
	fn()
	return nil
}

// For calls part(from, to) over consecutive ranges that cover [0, n),
// on every CPU when n is at least threshold and in one call otherwise: below
// the threshold, starting goroutines costs more than it saves. Each part
// must touch only what belongs to its range. A panic in a part is returned
// as an error once every part has ended.
func For(n, threshold int, part func(from, to int)) error {
	workers := runtime.GOMAXPROCS(0)
	if n < threshold || workers == 1 {
		return Protect(func() { part(0, n) })
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	errs := make([]error, 0, workers)
	var mu sync.Mutex
	for from := 0; from < n; from += per {
		wg.Go(func() {
			if err := Protect(func() { part(from, min(from+per, n)) }); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(errs) > 0 {
		return errs[0]
	}
	return nil
}
