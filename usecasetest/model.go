package usecasetest

import (
	"time"

	"github.com/disburse/disburse"
)

// model is the simplest description of what the service should do with
// money: plain maps and loops, no SQL. The property test drives the real
// service and this model side by side and compares them after every step.
type model struct {
	now     time.Time
	orgs    []*modelOrg
	batches []*modelBatch
	members map[string]bool
	wallets map[string]disburse.Money
}

type modelOrg struct {
	id, account string
	referrals   bool
	period      time.Duration
	float, held disburse.Money
}

type modelBatch struct {
	id       string
	org      *modelOrg
	status   disburse.BatchStatus
	payments []*modelPayment
}

type modelPayment struct {
	id   string
	legs [2]modelLeg // payment, referral (amount 0: none)
	due  time.Time
}

type modelLeg struct {
	msisdn string
	amount disburse.Money
	status disburse.PaymentStatus
}

func (p *modelPayment) eachLeg(f func(l *modelLeg)) {
	for i := range p.legs {
		if p.legs[i].amount > 0 {
			f(&p.legs[i])
		}
	}
}

// live are the payments that are not deleted.
func (b *modelBatch) live() []*modelPayment {
	var out []*modelPayment
	for _, p := range b.payments {
		if p.legs[0].status != disburse.PaymentDeleted {
			out = append(out, p)
		}
	}
	return out
}

// submit returns the error code the service should answer, and applies the submit when there is none.
func (m *model) submit(b *modelBatch) disburse.Code {
	if b.status != disburse.BatchDraft {
		return disburse.CodeInvalidState
	}
	live := b.live()
	if len(live) == 0 {
		return disburse.CodeBatchEmpty
	}
	var required disburse.Money
	for _, p := range live {
		p.eachLeg(func(l *modelLeg) { required += l.amount })
	}
	if required > b.org.float {
		return disburse.CodeInsufficientFloat
	}
	b.org.float -= required
	b.status = disburse.BatchClosed
	for _, p := range live {
		p.due = m.now.Add(b.org.period)
		p.eachLeg(func(l *modelLeg) {
			if m.members[l.msisdn] {
				l.status = disburse.PaymentSettled
				m.wallets[l.msisdn] += l.amount
				return
			}
			l.status = disburse.PaymentPending
			b.org.held += l.amount
			b.status = disburse.BatchOpen
		})
	}
	return ""
}

func (m *model) register(msisdn string) {
	if m.members[msisdn] {
		return
	}
	m.members[msisdn] = true
	m.resolve(func(p *modelPayment, l *modelLeg) bool { return l.msisdn == msisdn }, func(b *modelBatch, l *modelLeg) {
		l.status = disburse.PaymentSettled
		m.wallets[msisdn] += l.amount
	})
}

func (m *model) reverse() {
	m.resolve(func(p *modelPayment, l *modelLeg) bool { return !p.due.After(m.now) }, func(b *modelBatch, l *modelLeg) {
		l.status = disburse.PaymentCancelled
		b.org.float += l.amount
	})
}

// resolve settles or reverses the PENDING legs that match, then closes the
// OPEN batches left with nothing pending.
func (m *model) resolve(match func(*modelPayment, *modelLeg) bool, apply func(*modelBatch, *modelLeg)) {
	for _, b := range m.batches {
		for _, p := range b.payments {
			p.eachLeg(func(l *modelLeg) {
				if l.status == disburse.PaymentPending && match(p, l) {
					b.org.held -= l.amount
					apply(b, l)
				}
			})
		}
		if b.status == disburse.BatchOpen && !b.pending() {
			b.status = disburse.BatchClosed
		}
	}
}

func (b *modelBatch) pending() bool {
	for _, p := range b.payments {
		for _, l := range p.legs {
			if l.amount > 0 && l.status == disburse.PaymentPending {
				return true
			}
		}
	}
	return false
}

func (m *model) cancel(b *modelBatch) disburse.Code {
	if b.status != disburse.BatchDraft && b.status != disburse.BatchOpen {
		return disburse.CodeInvalidState
	}
	from := disburse.PaymentDraft
	if b.status == disburse.BatchOpen {
		from = disburse.PaymentPending
	}
	for _, p := range b.payments {
		p.eachLeg(func(l *modelLeg) {
			if l.status != from {
				return
			}
			if from == disburse.PaymentPending {
				b.org.held -= l.amount
				b.org.float += l.amount
			}
			l.status = disburse.PaymentCancelled
		})
	}
	b.status = disburse.BatchCancelled
	return ""
}

// summary is what the batch's summary should say.
func (b *modelBatch) summary() disburse.Summary {
	var s disburse.Summary
	for _, p := range b.live() {
		l := p.legs[0]
		s.PaymentsAmount += l.amount
		s.PaymentsCount++
		s.ReferralsAmount += p.legs[1].amount
		switch l.status {
		case disburse.PaymentDraft:
			s.DraftAmount += l.amount
			s.DraftCount++
		case disburse.PaymentPending:
			s.PendingAmount += l.amount
			s.PendingCount++
		case disburse.PaymentSettled:
			s.SettledAmount += l.amount
			s.SettledCount++
		case disburse.PaymentCancelled:
			s.CancelledAmount += l.amount
			s.CancelledCount++
		}
		p.eachLeg(func(l *modelLeg) {
			if l.status == disburse.PaymentPending {
				s.HeldAmount += l.amount
			}
		})
	}
	return s
}
