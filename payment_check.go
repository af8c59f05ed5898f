package disburse

// CheckPayments applies every rule AddPayments checks of the payments on
// their own, before it reads the store, with the service's Limits: msisdns,
// amounts, text fields, external ids unique within in, and the referral
// fields when referrals is true. It returns nil, or one CodeInvalid error
// with every failure by index. Tools that validate a file before sending
// it (the CLI's upload) call it, so a file is held to the service's own rules.
func (s *Service) CheckPayments(in []PaymentInput, referrals bool) error {
	var v Validation
	if _, err := s.validatePayments(&v, in, referrals); err != nil {
		return err
	}
	return v.Err()
}
