package sqlstore

import (
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/google/go-cmp/cmp"
)

// TestDistinctStates holds distinctStates to what UpdatePaymentStates
// needs: each payment's index names a state equal to its own, equal
// instants are one state wherever their location, and the zero time (NULL)
// is a state of its own.
func TestDistinctStates(t *testing.T) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 123456000, time.UTC)
	due := now.AddDate(0, 0, 60)
	settled := disburse.Payment{ID: "a", Status: disburse.PaymentSettled, IsMember: true, SubmittedAt: now, SettledAt: now}
	pending := disburse.Payment{ID: "b", Status: disburse.PaymentPending, SubmittedAt: now, ReversalDueAt: due}
	elsewhere := pending
	elsewhere.ID, elsewhere.SubmittedAt = "c", now.In(time.FixedZone("EAT", 3*60*60))
	epoch := pending
	epoch.ID, epoch.ReversalDueAt = "d", time.Unix(0, 0)
	referral := settled
	referral.ID, referral.ReferralStatus = "e", disburse.PaymentPending

	states, stateOf := distinctStates([]disburse.Payment{settled, pending, elsewhere, epoch, referral, settled})

	if diff := cmp.Diff([]int{0, 1, 1, 2, 3, 0}, stateOf); diff != "" {
		t.Errorf("state of each payment (-want +got):\n%s", diff)
	}
	if len(states) != 4 {
		t.Fatalf("%d states, want 4", len(states))
	}
	for i, p := range []disburse.Payment{settled, pending, elsewhere, epoch, referral, settled} {
		s := states[stateOf[i]]
		s.ID = p.ID
		if !s.SubmittedAt.Equal(p.SubmittedAt) || !s.ReversalDueAt.Equal(p.ReversalDueAt) {
			t.Errorf("payment %s: state's times %v, %v, want %v, %v", p.ID, s.SubmittedAt, s.ReversalDueAt, p.SubmittedAt, p.ReversalDueAt)
		}
		s.SubmittedAt, s.ReversalDueAt = p.SubmittedAt, p.ReversalDueAt
		if diff := cmp.Diff(p, s); diff != "" {
			t.Errorf("payment %s: its state (-want +got):\n%s", p.ID, diff)
		}
	}
}

// BenchmarkDistinctStates: a submit's page of 10,000 payments, half
// settled to members and half pending, a third with a referral.
func BenchmarkDistinctStates(b *testing.B) {
	now := time.Date(2026, 11, 25, 10, 0, 0, 123456000, time.UTC)
	ps := make([]disburse.Payment, 10_000)
	for i := range ps {
		p := &ps[i]
		p.SubmittedAt = now
		if i%2 == 0 {
			p.Status, p.IsMember, p.SettledAt = disburse.PaymentSettled, true, now
		} else {
			p.Status, p.ReversalDueAt = disburse.PaymentPending, now.AddDate(0, 0, 60)
		}
		if i%3 == 0 {
			p.ReferralStatus = disburse.PaymentPending
		}
	}
	for b.Loop() {
		distinctStates(ps)
	}
}
