package bench

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse"
)

// submit pays the batch as Submit would: members' legs to their wallets,
// the others' to the holding account until they register, each of those
// with an SMS. What is known before the transaction (the legs' amounts, the
// balances' changes, the summary) is worked out before it, off the clock:
// the floor times the database's work and the rows' encoding alone.
func (f *floor) submit(ctx context.Context, batchID string, spec batchSpec) (time.Duration, error) {
	ids := f.ids[batchID]
	delete(f.ids, batchID)
	switch {
	case len(ids) != spec.n:
		return 0, fmt.Errorf("batch %s was not added by the floor", batchID)
	case spec.members == nil:
		// Its UPDATE settles every referral leg: they go to members.
		return 0, fmt.Errorf("batch %s: the floor submits batches with members only", batchID)
	}
	plan := f.planSubmit(batchID, spec, ids)
	return f.transact(ctx, func(tx floorTx) error {
		wallets, err := f.wallets(ctx, tx, spec.members, plan.now)
		if err != nil {
			return err
		}
		if err := plan.settle(ctx, tx); err != nil {
			return err
		}
		if err := plan.insertTransfers(ctx, tx, wallets); err != nil {
			return err
		}
		if err := plan.insertSMS(ctx, tx, f.org); err != nil {
			return err
		}
		accounts, deltas := []uuid.UUID{plan.payout, plan.holding}, []int64{-plan.total, plan.held}
		for msisdn, amount := range plan.paid {
			accounts, deltas = append(accounts, wallets[msisdn]), append(deltas, amount)
		}
		if err := tx.addToBalances(ctx, accounts, deltas); err != nil {
			return err
		}
		if _, err := tx.exec(ctx, `INSERT INTO member_checks (batch_id, created_at) VALUES (?, ?)`, plan.batch, plan.now); err != nil {
			return err
		}
		return updateBatch(ctx, tx, plan.batch, disburse.BatchOpen, plan.summary, plan.now, micros(plan.due))
	})
}

// submitPlan is what a floor's submit knows before its transaction.
type submitPlan struct {
	spec                   batchSpec
	ids                    []uuid.UUID // the payments, in the order added
	batch, payout, holding uuid.UUID
	at, due                time.Time
	now                    int64 // at in the stores' micros
	summary                disburse.Summary
	paid                   map[string]int64 // members' msisdns: what their wallets receive
	held, total            int64
}

func (f *floor) planSubmit(batchID string, spec batchSpec, ids []uuid.UUID) *submitPlan {
	t := f.now()
	p := &submitPlan{spec: spec, ids: ids, batch: uuid.MustParse(batchID),
		payout: uuid.MustParse(f.org.accountID), holding: uuid.MustParse(f.org.holdingID),
		at: t, due: t.Add(f.org.reversal), now: micros(t), paid: make(map[string]int64)}
	for i := range spec.n {
		p.summary.Change(disburse.Payment{Status: disburse.PaymentDeleted}, submitted(spec.payment(i), t, p.due))
	}
	for w := spec.walk(); ; {
		_, l, ok := w.next()
		if !ok {
			break
		}
		p.total += int64(l.amount)
		if l.member {
			p.paid[l.msisdn] += int64(l.amount)
		} else {
			p.held += int64(l.amount)
		}
	}
	return p
}

// settle writes the payments' new states, decided by the membership
// stored at add.
func (p *submitPlan) settle(ctx context.Context, tx floorTx) error {
	n, err := tx.exec(ctx, `UPDATE payments SET
		status = CASE WHEN is_member THEN 'SETTLED' ELSE 'PENDING' END,
		submitted_at = CAST(? AS BIGINT),
		settled_at = CASE WHEN is_member THEN CAST(? AS BIGINT) END,
		reversal_due_at = CASE WHEN is_member THEN NULL ELSE CAST(? AS BIGINT) END,
		referral_status = CASE WHEN referral_amount > 0 THEN 'SETTLED' ELSE referral_status END,
		referral_settled_at = CASE WHEN referral_amount > 0 THEN CAST(? AS BIGINT) END
		WHERE batch_id = ? AND status = 'DRAFT'`, p.now, p.now, micros(p.due), p.now, p.batch)
	if err != nil {
		return err
	}
	if n != int64(p.spec.n) {
		return fmt.Errorf("submit updated %d of %d payments", n, p.spec.n)
	}
	return nil
}

// insertTransfers writes a transfer per leg, in the service's order.
func (p *submitPlan) insertTransfers(ctx context.Context, tx floorTx, wallets map[string]uuid.UUID) error {
	w := p.spec.walk()
	return tx.insert(ctx, "transfers", []string{"id", "from_account_id", "to_account_id", "amount", "kind", "payment_id", "leg", "reference", "created_at"},
		func(dst []any) bool {
			i, l, ok := w.next()
			if !ok {
				return false
			}
			to, kind := p.holding, disburse.TransferHold
			if l.member {
				to, kind = wallets[l.msisdn], disburse.TransferPay
			}
			dst[0], dst[1], dst[2], dst[3], dst[4] = uuid.Must(uuid.NewV7()), p.payout, to, int64(l.amount), string(kind)
			dst[5], dst[6], dst[7], dst[8] = p.ids[i], string(l.which), "", p.now
			return true
		})
}

// insertSMS writes an SMS per held leg, in the same order.
func (p *submitPlan) insertSMS(ctx context.Context, tx floorTx, o *org) error {
	sms := smsText(o, p.due)
	w := p.spec.walk()
	return tx.insert(ctx, "notifications", []string{"id", "channel", "recipient", "message", "status", "attempts", "next_attempt_at", "lease_owner", "last_error", "created_at"},
		func(dst []any) bool {
			for {
				_, l, ok := w.next()
				if !ok {
					return false
				}
				if l.member {
					continue
				}
				dst[0], dst[1], dst[2], dst[3] = uuid.Must(uuid.NewV7()), string(disburse.ChannelSMS), l.msisdn, sms(l.amount)
				dst[4], dst[5], dst[6], dst[7], dst[8], dst[9] = string(disburse.NotificationPending), int64(0), p.now, "", "", p.now
				return true
			}
		})
}

// floorLeg is one leg of payment i: where it goes and how much.
type floorLeg struct {
	which  disburse.Leg
	msisdn string
	amount disburse.Money
	member bool
}

// legs are payment i's n legs: its payment leg, then its referral leg if
// it has one.
func (spec batchSpec) legs(i int) (legs [2]floorLeg, n int) {
	payee, member := spec.payee(i)
	legs[0] = floorLeg{disburse.LegPayment, payee, spec.amount(i), member}
	if amount, to, member := spec.referral(i); amount > 0 {
		legs[1] = floorLeg{disburse.LegReferral, to, amount, member}
		return legs, 2
	}
	return legs, 1
}

// legWalk goes through a batch's legs in the service's order: each
// payment's payment leg, then its referral leg.
type legWalk struct {
	spec    batchSpec
	i, k, n int
	legs    [2]floorLeg
}

func (spec batchSpec) walk() *legWalk { return &legWalk{spec: spec, i: -1} }

// next returns the next leg and its payment's index, or false after the last.
func (w *legWalk) next() (int, floorLeg, bool) {
	for w.k == w.n {
		if w.i+1 == w.spec.n {
			return 0, floorLeg{}, false
		}
		w.i++
		w.k = 0
		w.legs, w.n = w.spec.legs(w.i)
	}
	w.k++
	return w.i, w.legs[w.k-1], true
}

// submitted is p after Submit: each leg SETTLED to a member or PENDING.
func submitted(p disburse.Payment, now, due time.Time) disburse.Payment {
	p.SubmittedAt = now
	if p.IsMember {
		p.Status, p.SettledAt = disburse.PaymentSettled, now
	} else {
		p.Status, p.ReversalDueAt = disburse.PaymentPending, due
	}
	if p.HasReferral() {
		// Referral legs of batches with members go to members (batchSpec).
		p.ReferralStatus, p.ReferralSettledAt = disburse.PaymentSettled, now
	}
	return p
}

// smsText returns the service's text to a non-member (messages.go) for
// an amount, its date formatted once.
func smsText(o *org, due time.Time) func(disburse.Money) string {
	head, tail := o.name+" sent you "+o.currency+" ", ". Register with Disburse by "+due.UTC().Format("2 January 2006")+" to receive it."
	return func(amount disburse.Money) string { return head + amount.String() + tail }
}

// wallets returns the members' wallets, creating those that do not exist
// yet, as the service does on a member's first payment.
func (f *floor) wallets(ctx context.Context, tx floorTx, members []string, now int64) (map[string]uuid.UUID, error) {
	wallets := make(map[string]uuid.UUID, len(members))
	if len(members) == 0 {
		return wallets, nil
	}
	args := []any{f.org.currency}
	for _, m := range members {
		args = append(args, m)
	}
	err := tx.query(ctx, `SELECT id, msisdn FROM accounts WHERE kind = 'WALLET' AND currency = ? AND msisdn IN (`+
		strings.TrimSuffix(strings.Repeat("?, ", len(members)), ", ")+`)`, args, func(scan func(...any) error) error {
		var id, msisdn string
		if err := scan(&id, &msisdn); err != nil {
			return err
		}
		wallets[msisdn] = uuid.MustParse(id)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var missing []string
	for _, m := range members {
		if _, ok := wallets[m]; !ok {
			wallets[m] = uuid.Must(uuid.NewV7())
			missing = append(missing, m)
		}
	}
	slices.Sort(missing)
	k := 0
	err = tx.insert(ctx, "accounts", []string{"id", "kind", "name", "currency", "balance", "is_default", "msisdn", "created_at"},
		func(dst []any) bool {
			if k == len(missing) {
				return false
			}
			m := missing[k]
			k++
			dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] = wallets[m], string(disburse.AccountWallet), m, f.org.currency, int64(0), false, m, now
			return true
		})
	return wallets, err
}
