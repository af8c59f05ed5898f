package sqlstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/disburse/disburse"
)

// UpdatePaymentStates writes the state columns of ps (paymentStateColumns)
// in one statement a chunk, in one of two forms by how many there are.
//
// A large write (a submit's page, a cancel's) shares a handful of states
// among its payments: settled or pending, with or without a referral. From
// statesOnceFrom payments on, each payment travels as its id and the
// number of its state, and each distinct state once, in a MATERIALIZED CTE
// the UPDATE joins (SQLite gives it an automatic index, so that a write of
// many states stays linear). The rows the engine unpacks are two columns
// wide, not nine, which a page of many payments pays for at every row.
// Below that, each payment carries its own state, the plainer statement:
// registrations (a few hundred legs at most) ran slower with the joined
// form in every pair of runs measured (docs/benchmarks.md, "A payment's
// state sent once").
func (t *tx) UpdatePaymentStates(ctx context.Context, ps []disburse.Payment) error {
	done := func(n int64, err error) error {
		if err != nil {
			return fmt.Errorf("update payment states: %w", err)
		}
		if n != int64(len(ps)) {
			return fmt.Errorf("update payment states: %d of %d payments: %w", n, len(ps), disburse.ErrNotFound)
		}
		return nil
	}
	if len(ps) < statesOnceFrom {
		return t.updateEachState(ctx, ps, done)
	}
	return t.updateDistinctStates(ctx, ps, done)
}

// statesOnceFrom is the size of a write from which UpdatePaymentStates
// sends each distinct state once.
const statesOnceFrom = 1000

// updateEachState joins the payments to their ids, each row with its state.
// Inside Together it is held (tx.later); done gets the rows it updated.
func (t *tx) updateEachState(ctx context.Context, ps []disburse.Payment, done func(int64, error) error) error {
	cols := paymentStateColumns(ps)
	return t.bulkLater(ctx, `UPDATE payments SET `+setFrom("r", cols[1:])+` FROM @rows AS r WHERE payments.id = r.id`,
		nil, len(ps), cols, nil, done)
}

// updateDistinctStates joins the payments to their ids and their ids to
// their states, numbered by k.
func (t *tx) updateDistinctStates(ctx context.Context, ps []disburse.Payment, done func(int64, error) error) error {
	states, stateOf := distinctStates(ps)
	stateCols := paymentStateColumns(states)[1:]
	src, stateArgs, err := t.e.Rows(append(stateCols, IntCol("k", func(i int) int64 { return int64(i) })), len(states))
	if err != nil {
		return done(0, err)
	}
	return t.bulkLater(ctx, `WITH s AS MATERIALIZED `+src+` UPDATE payments SET `+setFrom("s", stateCols)+
		` FROM @rows AS r JOIN s ON s.k = r.k WHERE payments.id = r.id`, stateArgs, len(ps), []Column{
		IDCol("id", func(i int) string { return ps[i].ID }),
		IntCol("k", func(i int) int64 { return int64(stateOf[i]) }),
	}, nil, done)
}

// paymentState is what paymentStateColumns write, but the id. Times are
// kept as the columns store them (stateMicros), so that two equal instants
// are one state whatever their location or monotonic reading; as plain
// integers, not boxed, since every payment of a page makes a key.
type paymentState struct {
	status, referralStatus                                                disburse.PaymentStatus
	isMember                                                              bool
	submittedAt, settledAt, reversalDueAt, cancelledAt, referralSettledAt int64
}

// stateMicros is a state's time as its column stores it, unix
// microseconds, with the zero time (NULL) as a value no instant has.
func stateMicros(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixMicro()
}

// distinctStates returns the distinct states of ps, each as a payment that
// carries only that state, in order of first use, and for each payment of
// ps the index of its state among them.
func distinctStates(ps []disburse.Payment) ([]disburse.Payment, []int) {
	index := make(map[paymentState]int)
	var states []disburse.Payment
	stateOf := make([]int, len(ps))
	for i, p := range ps {
		key := paymentState{p.Status, p.ReferralStatus, p.IsMember,
			stateMicros(p.SubmittedAt), stateMicros(p.SettledAt), stateMicros(p.ReversalDueAt), stateMicros(p.CancelledAt), stateMicros(p.ReferralSettledAt)}
		k, ok := index[key]
		if !ok {
			k = len(states)
			index[key] = k
			states = append(states, disburse.Payment{Status: p.Status, ReferralStatus: p.ReferralStatus, IsMember: p.IsMember,
				SubmittedAt: p.SubmittedAt, SettledAt: p.SettledAt, ReversalDueAt: p.ReversalDueAt, CancelledAt: p.CancelledAt,
				ReferralSettledAt: p.ReferralSettledAt})
		}
		stateOf[i] = k
	}
	return states, stateOf
}
