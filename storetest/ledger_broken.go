package storetest

import (
	"strings"
	"testing"

	"github.com/disburse/disburse"
)

// fundingAccountID is the funding account's fixed id (the migrations).
const fundingAccountID = "00000000-0000-7000-8000-000000000000"

// testLedgerBroken breaks a sound ledger in one way at a time with raw SQL,
// expects LedgerProblems to name what broke, repairs it and expects no
// problem again.
func testLedgerBroken(t *testing.T, s disburse.Store) {
	raw, ok := s.(RawExecer)
	if !ok {
		t.Skip("the store cannot run raw SQL")
	}
	l := newSoundLedger(t, s)
	cases := []struct {
		name           string
		breaks, repair string // statements with one ? for arg
		arg            string
		want           []string // each must start one of the problems
		mayRefuse      bool     // a store's constraint may refuse the break
	}{{
		name:   "balance changed without a transfer",
		breaks: `UPDATE accounts SET balance = balance + 1 WHERE id = ?`,
		repair: `UPDATE accounts SET balance = balance - 1 WHERE id = ?`,
		arg:    l.payout.ID,
		want:   []string{"sum of balances: 0.01", "sum of KES balances", "account " + l.payout.ID + ": balance"},
	}, {
		name:   "settled with only a HOLD",
		breaks: `UPDATE payments SET status = 'SETTLED', settled_at = submitted_at WHERE id = ?`,
		repair: `UPDATE payments SET status = 'PENDING', settled_at = NULL WHERE id = ?`,
		arg:    l.held.ID,
		want:   []string{"payment " + l.held.ID + " PAYMENT leg: SETTLED 50.00, but 1 HOLD", "batch " + l.open.ID + ": stored summary"},
	}, {
		name:   "transfer moved to a leg the payment does not have",
		breaks: `UPDATE transfers SET leg = 'REFERRAL' WHERE payment_id = ?`,
		repair: `UPDATE transfers SET leg = 'PAYMENT' WHERE payment_id = ?`,
		arg:    l.paid.ID,
		want:   []string{"payment " + l.paid.ID + " PAYMENT leg: SETTLED 100.00, but no transfers", "payment " + l.paid.ID + " REFERRAL leg: transfers for a leg"},
	}, {
		name:   "summary not what the payments say",
		breaks: `UPDATE batches SET settled_count = settled_count + 1 WHERE id = ?`,
		repair: `UPDATE batches SET settled_count = settled_count - 1 WHERE id = ?`,
		arg:    l.open.ID,
		want:   []string{"batch " + l.open.ID + ": stored summary differs from its payments: SettledCount 3, payments say 2"},
	}, {
		name:   "held amount not what the holding account holds",
		breaks: `UPDATE batches SET held_amount = held_amount + 100 WHERE id = ?`,
		repair: `UPDATE batches SET held_amount = held_amount - 100 WHERE id = ?`,
		arg:    l.open.ID,
		want:   []string{"batch " + l.open.ID + ": stored summary", "holding account " + l.holding.ID},
	}, {
		name:   "settled into another member's wallet",
		breaks: `UPDATE transfers SET to_account_id = (SELECT to_account_id FROM transfers WHERE kind = 'PAY' AND leg = 'PAYMENT') WHERE kind = 'SETTLE' AND payment_id = ?`,
		repair: `UPDATE transfers SET to_account_id = (SELECT id FROM accounts WHERE kind = 'WALLET' AND msisdn = (SELECT msisdn FROM payments WHERE id = ?)) WHERE kind = 'SETTLE'`,
		arg:    l.registered.ID,
		want:   []string{"SETTLE transfer "},
	}, {
		name:   "reversed into a wallet, not the float",
		breaks: `UPDATE transfers SET to_account_id = (SELECT to_account_id FROM transfers WHERE kind = 'PAY' AND leg = 'PAYMENT') WHERE kind = 'REVERSE' AND payment_id = ?`,
		repair: `UPDATE transfers SET to_account_id = (SELECT b.account_id FROM batches b JOIN payments p ON p.batch_id = b.id WHERE p.id = ?) WHERE kind = 'REVERSE'`,
		arg:    l.reversed.ID,
		want:   []string{"REVERSE transfer "},
	}, {
		name:   "cancelled after submit with nothing returned",
		breaks: `UPDATE payments SET submitted_at = cancelled_at WHERE id = ?`,
		repair: `UPDATE payments SET submitted_at = NULL WHERE id = ?`,
		arg:    l.dropped.ID,
		want:   []string{"payment " + l.dropped.ID + " PAYMENT leg: CANCELLED 15.00, but no transfers"},
	}, {
		name:   "account in another currency",
		breaks: `UPDATE accounts SET currency = 'USD' WHERE id = ?`,
		repair: `UPDATE accounts SET currency = 'KES' WHERE id = ?`,
		arg:    l.holding.ID,
		want:   []string{"sum of KES balances", "sum of USD balances", "transfer "},
	}, {
		// No foreign key refuses this on PostgreSQL (migration 00002);
		// SQLite's still do.
		name:      "transfer from an account that does not exist",
		breaks:    `UPDATE transfers SET from_account_id = ? WHERE kind = 'DEPOSIT'`,
		repair:    `UPDATE transfers SET from_account_id = '` + fundingAccountID + `' WHERE from_account_id = ?`,
		arg:       disburse.NewID(),
		want:      []string{"DEPOSIT transfer ", "account "},
		mayRefuse: true,
	}, {
		// Nor one from a payment (migration 00004).
		name:      "payment in a batch that does not exist",
		breaks:    `UPDATE payments SET batch_id = ? WHERE id = '` + l.dropped.ID + `'`,
		repair:    `UPDATE payments SET batch_id = '` + l.dropped.BatchID + `' WHERE batch_id = ?`,
		arg:       disburse.NewID(),
		want:      []string{"payment " + l.dropped.ID + ": batch ", "batch " + l.dropped.BatchID + ": stored summary"},
		mayRefuse: true,
	}, {
		name:      "payment of another organisation than its batch's",
		breaks:    `UPDATE payments SET organisation_id = ? WHERE id = '` + l.dropped.ID + `'`,
		repair:    `UPDATE payments SET organisation_id = '` + l.dropped.OrganisationID + `' WHERE organisation_id = ?`,
		arg:       disburse.NewID(),
		want:      []string{"payment " + l.dropped.ID + ": batch " + l.dropped.BatchID + " does not exist in its organisation"},
		mayRefuse: true,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx := t.Context()
			if err := raw.ExecRaw(ctx, c.breaks, c.arg); err != nil {
				if c.mayRefuse {
					t.Skipf("the store refuses the break: %v", err)
				}
				t.Fatalf("break the ledger: %v", err)
			}
			problems := get(t, s, func(tx disburse.Tx) ([]string, error) { return tx.LedgerProblems(ctx) })
			for _, w := range c.want {
				if !hasPrefix(problems, w) {
					t.Errorf("no problem starts with %q; problems:\n%s", w, strings.Join(problems, "\n"))
				}
			}
			if err := raw.ExecRaw(ctx, c.repair, c.arg); err != nil {
				t.Fatalf("repair the ledger: %v", err)
			}
			if problems := get(t, s, func(tx disburse.Tx) ([]string, error) { return tx.LedgerProblems(ctx) }); len(problems) != 0 {
				t.Errorf("LedgerProblems after the repair = %q", problems)
			}
		})
	}
	t.Run("negative balance", func(t *testing.T) {
		// The CHECK on accounts refuses it outright, so the audit's own
		// check of it cannot be reached through SQL here.
		if err := raw.ExecRaw(t.Context(), `UPDATE accounts SET balance = -1 WHERE id = ?`, l.payout.ID); err == nil {
			t.Error("a negative payout balance was accepted")
		}
	})
}

func hasPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}
