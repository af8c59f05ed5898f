package sqlstore

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/disburse/disburse"
)

// UpdatePaymentStates writes the state columns of ps (paymentStateColumns)
// in one statement a chunk. The payments of one write share a handful of
// states (a submit's page: settled or pending, with or without a
// referral), so each payment travels as its id and the number of its
// state, and each distinct state once: the rows the engine unpacks are
// two columns wide, not nine, which took a page of 10,000 from about 115
// to 76 ms on PostgreSQL (docs/benchmarks.md, "A payment's state sent
// once"). The states are MATERIALIZED so that SQLite indexes them for the
// join rather than reading them all again for every payment.
func (t *tx) UpdatePaymentStates(ctx context.Context, ps []disburse.Payment) error {
	states, stateOf := distinctStates(ps)
	stateCols := append(paymentStateColumns(states)[1:], IntCol("k", func(i int) int64 { return int64(i) }))
	src, stateArgs, err := t.e.Rows(stateCols, len(states))
	if err != nil {
		return fmt.Errorf("update payment states: %w", err)
	}
	set := ""
	for i, c := range stateCols[:len(stateCols)-1] {
		if i > 0 {
			set += ", "
		}
		set += c.Name + " = s." + c.Name
	}
	n, err := t.bulk(ctx, `WITH s AS MATERIALIZED `+src+` UPDATE payments SET `+set+
		` FROM @rows AS r JOIN s ON s.k = r.k WHERE payments.id = r.id`, stateArgs, len(ps), []Column{
		IDCol("id", func(i int) string { return ps[i].ID }),
		IntCol("k", func(i int) int64 { return int64(stateOf[i]) }),
	}, nil)
	if err != nil {
		return fmt.Errorf("update payment states: %w", err)
	}
	if n != int64(len(ps)) {
		return fmt.Errorf("update payment states: %d of %d payments: %w", n, len(ps), disburse.ErrNotFound)
	}
	return nil
}

// paymentState is what paymentStateColumns write, but the id. Times are
// kept as microseconds, what the columns store, so that two equal
// instants are one state whatever their location or monotonic reading.
type paymentState struct {
	status, referralStatus                                                disburse.PaymentStatus
	isMember                                                              bool
	submittedAt, settledAt, reversalDueAt, cancelledAt, referralSettledAt int64
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
			unixMicro(p.SubmittedAt), unixMicro(p.SettledAt), unixMicro(p.ReversalDueAt), unixMicro(p.CancelledAt), unixMicro(p.ReferralSettledAt)}
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

// unixMicro is t as the store keeps it, and for the zero time (NULL) a
// number no time gives.
func unixMicro(t time.Time) int64 {
	if t.IsZero() {
		return math.MinInt64
	}
	return t.UnixMicro()
}
