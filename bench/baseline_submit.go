package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse"
)

// leg is one movement of a submit: payment i's payment or referral leg.
type leg struct {
	i        int32
	referral bool
	to       uuid.UUID // a member's wallet, or the holding account
	held     bool      // to the holding account: the payee is no member
}

// submit pays the batch as Submit would: members' legs to their wallets,
// the others' to the holding account until they register.
func (b *baseline) submit(ctx context.Context, batchID string, spec batchSpec) (time.Duration, error) {
	ids := b.ids[batchID]
	delete(b.ids, batchID)
	if len(ids) != spec.n {
		return 0, fmt.Errorf("batch %s was not added by the baseline", batchID)
	}
	batch := uuid.MustParse(batchID)
	payout, holding := uuid.MustParse(b.org.accountID), uuid.MustParse(b.org.holdingID)
	return b.transact(ctx, func(tx bulkTx) error {
		t := b.now()
		now, due := micros(t), t.Add(b.org.reversal)
		balances, wallets, err := b.accounts(ctx, tx, spec.members, t)
		if err != nil {
			return err
		}
		// Every leg, with where it goes; the balances move with them.
		var legs []leg
		var held []int // the legs that go to holding, each an SMS
		var s disburse.Summary
		for i := range spec.n {
			p := spec.payment(i)
			legs = append(legs, b.leg(i, false, p.IsMember, wallets[p.Msisdn], holding))
			if p.HasReferral() {
				_, to, member := spec.referral(i)
				legs = append(legs, b.leg(i, true, member, wallets[to], holding))
			}
			s.Change(disburse.Payment{Status: disburse.PaymentDeleted}, submitted(p, t, due))
		}
		delta := make(map[uuid.UUID]disburse.Money)
		for k, l := range legs {
			amount := spec.legAmount(l)
			delta[payout] -= amount
			delta[l.to] += amount
			if l.held {
				held = append(held, k)
			}
		}

		err = tx.insert(ctx, "transfers", []string{"id", "from_account_id", "to_account_id", "amount", "kind", "payment_id", "leg", "reference", "created_at"},
			len(legs), func(k int, dst []any) {
				l := legs[k]
				kind, which := disburse.TransferPay, disburse.LegPayment
				if l.held {
					kind = disburse.TransferHold
				}
				if l.referral {
					which = disburse.LegReferral
				}
				dst[0], dst[1], dst[2], dst[3], dst[4] = uuid.Must(uuid.NewV7()), payout, l.to, int64(spec.legAmount(l)), string(kind)
				dst[5], dst[6], dst[7], dst[8] = ids[l.i], string(which), "", now
			})
		if err != nil {
			return err
		}
		err = tx.update(ctx, "payments", []string{"id", "status", "is_member", "submitted_at", "settled_at", "reversal_due_at", "referral_status", "referral_settled_at"},
			spec.n, func(i int, dst []any) {
				p := submitted(spec.payment(i), t, due)
				dst[0], dst[1], dst[2], dst[3] = ids[i], string(p.Status), p.IsMember, now
				dst[4], dst[5], dst[6], dst[7] = nullMicros(p.SettledAt), nullMicros(p.ReversalDueAt), string(p.ReferralStatus), nullMicros(p.ReferralSettledAt)
			})
		if err != nil {
			return err
		}
		err = tx.insert(ctx, "notifications", []string{"id", "channel", "recipient", "message", "status", "attempts", "next_attempt_at", "lease_owner", "last_error", "created_at"},
			len(held), func(k int, dst []any) {
				l := legs[held[k]]
				dst[0], dst[1], dst[2], dst[3] = uuid.Must(uuid.NewV7()), string(disburse.ChannelSMS), spec.legMsisdn(l), b.sms(spec.legAmount(l), due)
				dst[4], dst[5], dst[6], dst[7], dst[8], dst[9] = string(disburse.NotificationPending), int64(0), now, "", "", now
			})
		if err != nil {
			return err
		}
		touched := make([]uuid.UUID, 0, len(delta))
		for id := range delta {
			touched = append(touched, id)
		}
		err = tx.update(ctx, "accounts", []string{"id", "balance"}, len(touched), func(k int, dst []any) {
			id := touched[k]
			dst[0], dst[1] = id, int64(balances[id]+delta[id])
		})
		if err != nil {
			return err
		}
		return updateBatch(ctx, tx, batch, disburse.BatchOpen, s, now)
	})
}

// leg says where one leg of payment i goes.
func (b *baseline) leg(i int, referral, member bool, wallet, holding uuid.UUID) leg {
	if member {
		return leg{i: int32(i), referral: referral, to: wallet}
	}
	return leg{i: int32(i), referral: referral, to: holding, held: true}
}

func (spec batchSpec) legAmount(l leg) disburse.Money {
	if l.referral {
		amount, _, _ := spec.referral(int(l.i))
		return amount
	}
	return spec.amount(int(l.i))
}

func (spec batchSpec) legMsisdn(l leg) string {
	if l.referral {
		_, to, _ := spec.referral(int(l.i))
		return to
	}
	payee, _ := spec.payee(int(l.i))
	return payee
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

// sms is the service's text to a non-member (messages.go).
func (b *baseline) sms(amount disburse.Money, due time.Time) string {
	return b.org.name + " sent you " + b.org.currency + " " + amount.String() +
		". Register with Disburse by " + due.UTC().Format("2 January 2006") + " to receive it."
}

// accounts reads the balances of the payout and holding accounts and of
// the members' wallets, creating the wallets that do not exist yet.
func (b *baseline) accounts(ctx context.Context, tx bulkTx, members []string, now time.Time) (map[uuid.UUID]disburse.Money, map[string]uuid.UUID, error) {
	balances := make(map[uuid.UUID]disburse.Money)
	wallets := make(map[string]uuid.UUID)
	err := tx.query(ctx, `SELECT id, msisdn, balance FROM accounts WHERE id = ? OR id = ? OR (kind = 'WALLET' AND currency = ?)`,
		[]any{b.org.accountID, b.org.holdingID, b.org.currency}, func(scan func(...any) error) error {
			var id, msisdn string
			var balance int64
			if err := scan(&id, &msisdn, &balance); err != nil {
				return err
			}
			u := uuid.MustParse(id)
			if msisdn != "" {
				wallets[msisdn] = u
			}
			balances[u] = disburse.Money(balance)
			return nil
		})
	if err != nil {
		return nil, nil, err
	}
	var missing []string
	for _, m := range members {
		if _, ok := wallets[m]; !ok {
			wallets[m] = uuid.Must(uuid.NewV7())
			missing = append(missing, m)
		}
	}
	err = tx.insert(ctx, "accounts", []string{"id", "kind", "name", "currency", "balance", "is_default", "msisdn", "created_at"},
		len(missing), func(k int, dst []any) {
			m := missing[k]
			dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] = wallets[m], string(disburse.AccountWallet), m, b.org.currency, int64(0), false, m, micros(now)
		})
	return balances, wallets, err
}

// nullMicros is an optional time as the stores keep it: NULL when unset.
func nullMicros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return micros(t)
}
