package disburse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestMovesSum: legs sum by kind and currency; only a payment leg counts
// a payment; a deposit is no movement.
func TestMovesSum(t *testing.T) {
	var m writeBuffer
	kes, ugx := Organisation{Currency: "KES"}, Organisation{Currency: "UGX"}
	m.transfer(kes, "f", "w", 1000, TransferPay, Payment{}, LegPayment)
	m.transfer(kes, "f", "h", 200, TransferHold, Payment{}, LegReferral)
	m.transfer(kes, "h", "w", 500, TransferSettle, Payment{}, LegPayment)
	m.transfer(ugx, "f", "h", 300, TransferHold, Payment{}, LegPayment)
	m.transfer(kes, "x", "f", 99, TransferDeposit, Payment{}, "")
	want := moves{
		{Kind: MoveSettled, Currency: "KES", Amount: 1500, Payments: 2},
		{Kind: MoveHeld, Currency: "KES", Amount: 200},
		{Kind: MoveHeld, Currency: "UGX", Amount: 300, Payments: 1},
	}
	if diff := cmp.Diff(want, m.moved); diff != "" {
		t.Errorf("moves (-want +got):\n%s", diff)
	}
}

// BenchmarkMovesAdd is the cost a submit pays per leg to count what it
// moves (one op: one leg), beside the transfer it writes.
func BenchmarkMovesAdd(b *testing.B) {
	var ms moves
	kinds := []MoveKind{MoveSettled, MoveHeld}
	i := 0
	for b.Loop() {
		ms.add(kinds[i&1], "KES", 1000, LegPayment)
		i++
	}
}
