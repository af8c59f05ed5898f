package disburse

// contribution is what one payment adds to its batch's summary. A summary is
// the sum of its payments' contributions, so every state change updates it
// by removing the old contribution and adding the new one.
func contribution(p Payment) Summary {
	var s Summary
	if p.Status == PaymentDeleted {
		return s
	}
	s.PaymentsAmount, s.PaymentsCount = p.Amount, 1
	s.ReferralsAmount = p.ReferralAmount
	switch p.Status {
	case PaymentDraft:
		s.DraftAmount, s.DraftCount = p.Amount, 1
	case PaymentPending:
		s.PendingAmount, s.PendingCount = p.Amount, 1
		s.HeldAmount += p.Amount
	case PaymentSettled:
		s.SettledAmount, s.SettledCount = p.Amount, 1
	case PaymentCancelled:
		s.CancelledAmount, s.CancelledCount = p.Amount, 1
	}
	if p.HasReferral() && p.ReferralStatus == PaymentPending {
		s.HeldAmount += p.ReferralAmount
	}
	return s
}

// add returns s + o, field by field (o scaled by sign).
func (s Summary) add(o Summary, sign int64) Summary {
	m := Money(sign)
	return Summary{
		PaymentsAmount:  s.PaymentsAmount + m*o.PaymentsAmount,
		PaymentsCount:   s.PaymentsCount + sign*o.PaymentsCount,
		ReferralsAmount: s.ReferralsAmount + m*o.ReferralsAmount,
		DraftAmount:     s.DraftAmount + m*o.DraftAmount,
		DraftCount:      s.DraftCount + sign*o.DraftCount,
		PendingAmount:   s.PendingAmount + m*o.PendingAmount,
		PendingCount:    s.PendingCount + sign*o.PendingCount,
		SettledAmount:   s.SettledAmount + m*o.SettledAmount,
		SettledCount:    s.SettledCount + sign*o.SettledCount,
		CancelledAmount: s.CancelledAmount + m*o.CancelledAmount,
		CancelledCount:  s.CancelledCount + sign*o.CancelledCount,
		HeldAmount:      s.HeldAmount + m*o.HeldAmount,
	}
}

// Change moves one payment from its old state to its new one in the summary.
func (s *Summary) Change(old, new Payment) {
	*s = s.add(contribution(old), -1).add(contribution(new), 1)
}

// Nothing pending: every leg is settled or reversed, so an OPEN batch closes.
func (s Summary) nothingPending() bool { return s.HeldAmount == 0 }

// submitted moves the legs t sums from DRAFT to where a submit put them:
// their payments PENDING (HOLD) or SETTLED (PAY), and every held leg,
// referral legs included, into HeldAmount (contribution's rules).
func (s *Summary) submitted(t LegTotal) {
	if t.Kind == TransferHold {
		s.HeldAmount += t.Amount
	}
	if t.Leg != LegPayment {
		return
	}
	s.DraftAmount -= t.Amount
	s.DraftCount -= t.Count
	if t.Kind == TransferHold {
		s.PendingAmount += t.Amount
		s.PendingCount += t.Count
	} else {
		s.SettledAmount += t.Amount
		s.SettledCount += t.Count
	}
}
