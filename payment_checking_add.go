package disburse

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/disburse/disburse/internal/parallel"
)

// checkRun is how many payments addWhileChecking checks at a time: a
// run's checks take a fraction of the time its rows take to insert, and
// stay on one goroutine (below parallelChecks), leaving the other CPU to
// the database.
const checkRun = 1000

// errRecheck ends an addWhileChecking that found a failure: nothing was
// written, and AddPayments checks the request again the way that lists
// every failure at once.
var errRecheck = errors.New("add: a payment failed its checks")

// addWhileChecking is AddPayments on a store whose writes run side by
// side (docs/benchmarks.md, "The add and the stores"): its write
// transaction starts at once and inserts the payments as they are
// checked, a run at a time, the next run checked while the database
// inserts the runs before it, instead of every payment checked first.
// The add is not a money transaction: a payment that fails, a batch
// that would pass its limit, or an external id already taken ends it
// with nothing written (errRecheck, ErrDuplicate), and AddPayments adds
// the request as a store with one writer does, whose answer lists every
// failure.
func (s *Service) addWhileChecking(ctx context.Context, organisationID, batchID string, in []PaymentInput, clear bool) (Batch, []Payment, error) {
	var b Batch
	var payments []Payment
	room := paymentsAhead(len(in))
	err := s.Store.Write(ctx, func(tx Tx) error {
		org, err := tx.Organisation(ctx, organisationID)
		if err != nil {
			return err
		}
		if b, err = draftToAdd(ctx, tx, organisationID, batchID); err != nil {
			return err
		}
		var v Validation
		externalID := func(i int) string { return in[i].ExternalID }
		if err := checkExternalIDs(ctx, tx, &v, b, len(in), externalID, clear, false); err != nil {
			return err
		}
		if s.checkBatchLimit(&v, b, clear, len(in)); v.Err() != nil {
			return errRecheck
		}
		members, err := membersIn(ctx, tx, org, payees(in))
		if err != nil {
			return err
		}
		if clear {
			if err := tx.DeleteDraftPayments(ctx, b.ID); err != nil {
				return err
			}
			b.Summary = Summary{}
		}
		checks := s.newPaymentChecks(&v, in, org.ReferralsEnabled, room())
		runs := s.checkRuns(checks, b, members)
		err = tx.InsertPaymentsAsReady(ctx, checks.out, runs.next)
		if failed := runs.stop(); failed != nil {
			return failed
		}
		if err != nil {
			return err
		}
		payments = checks.out
		for _, p := range payments {
			b.Summary.Change(Payment{Status: PaymentDeleted}, p)
		}
		if err := tx.UpdateBatch(ctx, b); err != nil {
			return err
		}
		return s.auditAdded(ctx, tx, b, len(payments), paymentsTotal(payments), clear)
	})
	return b, payments, err
}

// paymentsAhead makes room for n payments on a goroutine of its own, and
// returns a function that waits for it, the same room at every call (a
// transaction run again checks its payments into it again, overwriting
// each whole). The room of a request of 10,000 is about 3 MB: made while
// the transaction's first statements and the members' lookup wait on
// the database, rather than just before the insert, it and the garbage
// collection it sets off no longer take the core the database's insert
// needs (docs/benchmarks.md, "The add and the stores").
func paymentsAhead(n int) func() []Payment {
	made := make(chan []Payment, 1)
	go func() { made <- make([]Payment, n) }()
	var room []Payment
	return func() []Payment {
		if room == nil {
			room = <-made
		}
		return room
	}
}

// checkedRuns are the runs of a request's payments that a goroutine has
// checked and prepared, handed to the insert in order.
type checkedRuns struct {
	ready   chan int   // how many payments are ready, after each run
	done    chan error // the goroutine's end: nil, errRecheck or a panic
	stopped atomic.Bool
}

// checkRuns starts checking checks' payments a run at a time, giving
// each run that passes its ids, batch, time and membership.
func (s *Service) checkRuns(checks *paymentChecks, b Batch, members map[string]Member) *checkedRuns {
	r := &checkedRuns{ready: make(chan int, len(checks.in)/checkRun+1), done: make(chan error, 1)}
	now := s.Now()
	go func() {
		defer close(r.ready)
		var err error
		if panicked := parallel.Protect(func() { err = r.check(checks, b, members, now) }); panicked != nil {
			err = panicked
		}
		r.done <- err
	}()
	return r
}

// check checks and prepares the runs in order until the last, the
// first that fails (errRecheck), or stop.
func (r *checkedRuns) check(checks *paymentChecks, b Batch, members map[string]Member, now time.Time) error {
	n := len(checks.in)
	for from := 0; from < n && !r.stopped.Load(); {
		to := min(from+checkRun, n)
		if err := checks.check(to); err != nil {
			return err
		}
		if checks.v.Err() != nil {
			return errRecheck
		}
		prepareNewPayments(checks.out[from:to], b, members, now)
		r.ready <- to // never blocks: there is room for every run
		from = to
	}
	return nil
}

// next waits for the next run and returns how many payments are ready.
func (r *checkedRuns) next() (int, error) {
	if n, ok := <-r.ready; ok {
		return n, nil
	}
	return 0, errRecheck
}

// stop ends the checks, waits for the goroutine and returns why it
// stopped early: errRecheck, a panic's error, or nil.
func (r *checkedRuns) stop() error {
	r.stopped.Store(true)
	return <-r.done
}
