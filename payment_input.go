package disburse

import (
	"strconv"

	"github.com/disburse/disburse/internal/parallel"
)

// PaymentInput is one payment of POST /batches/{id}/payments as the client
// sent it, and the one list of a payment's request fields: the HTTP API
// reads each by its JSON name, and validatePayments checks each and copies
// it into the Payment (TestPaymentFieldPlaces, in httpapi, holds every
// field to both and to the answer).
type PaymentInput struct {
	Msisdn         string     `json:"msisdn"`
	Amount         Number     `json:"amount"`
	Firstname      string     `json:"firstname"`
	Lastname       string     `json:"lastname"`
	ExternalID     string     `json:"externalId"`
	ReferralAmount Number     `json:"referralAmount"`
	ReferralMsisdn string     `json:"referralMsisdn"`
	WrongTypes     WrongTypes `json:"-"`
}

// The names a payment's failures give its fields (fieldExternalID too).
const (
	fieldMsisdn         Field = "Msisdn"
	fieldAmount         Field = "Amount"
	fieldFirstname      Field = "Firstname"
	fieldLastname       Field = "Lastname"
	fieldReferralAmount Field = "ReferralAmount"
	fieldReferralMsisdn Field = "ReferralMsisdn"
)

// Number is an amount as the client wrote it: the text of a JSON number
// ("150.00", "1e2", "-5"), or empty when absent. It is checked exactly by
// ParseMoney, never through a float (docs/api.md section 1).
type Number string

// AddPaymentsInput is the body of POST /batches/{id}/payments. ClearExisting
// is a pointer because it is required: nil means the client left it out.
type AddPaymentsInput struct {
	ClearExisting *bool          `json:"clearExisting"`
	Payments      []PaymentInput `json:"payments"`
	WrongTypes    WrongTypes     `json:"-"` // of ClearExisting and Payments
}

// MsisdnMessage explains the msisdn rules of docs/api.md section 1.
const MsisdnMessage = "msisdn must be an international number: country code first, 8 to 15 digits, no leading zero or plus sign"

// validatePayments checks every payment on its own (docs/api.md sections S4.2 and 4.1)
// and returns the payments built from the valid inputs. Checks that need the
// database (external ids in use, the batch limit) come later, in the
// transaction, into the same Validation.
func (s *Service) validatePayments(v *Validation, in []PaymentInput, referrals bool) ([]Payment, error) {
	c := s.newPaymentChecks(v, in, referrals, make([]Payment, len(in)))
	if err := c.check(len(in)); err != nil {
		return nil, err
	}
	return c.out, nil
}

// paymentChecks checks a request's payments in order, a run at a time,
// into out: an add may copy the runs already checked while it checks the
// next (addWhileChecking).
type paymentChecks struct {
	s            *Service
	v            *Validation
	in           []PaymentInput
	out          []Payment
	referrals    bool
	checked      int            // out[:checked] are checked
	seenExternal map[string]int // the external ids of the payments checked, by index
}

// newPaymentChecks checks in into out, a slice of the same length whose
// payments it overwrites whole.
func (s *Service) newPaymentChecks(v *Validation, in []PaymentInput, referrals bool, out []Payment) *paymentChecks {
	return &paymentChecks{s: s, v: v, in: in, out: out, referrals: referrals,
		seenExternal: make(map[string]int, len(in))}
}

// check checks the payments after those already checked, up to to.
func (c *paymentChecks) check(to int) error {
	from := c.checked
	validPayee, validReferral, err := validMsisdns(c.in[from:to], c.referrals)
	if err != nil {
		return err
	}
	v := c.v
	for i := from; i < to; i++ {
		p := c.in[i]
		out := &c.out[i]
		*out = Payment{Msisdn: p.Msisdn, Firstname: p.Firstname, Lastname: p.Lastname, ExternalID: p.ExternalID, Status: PaymentDraft}
		// A wrong type is the field's failure; the fields of the right type
		// are still checked, so that one answer lists every failure.
		w := p.WrongTypes
		if w.report(v, i, fieldPayments) {
			continue // not a payment at all: nothing else to check
		}
		if !w.report(v, i, fieldMsisdn) && !validPayee[i-from] {
			v.Add(i, string(fieldMsisdn), p.Msisdn, MsisdnMessage)
		}
		out.Amount = c.s.amount(v, i, fieldAmount, p.Amount, w)
		checkPaymentTexts(v, i, p, c.seenExternal)
		if c.referrals { // else referral fields are ignored: not validated (types included), stored or returned
			c.s.checkReferral(v, i, p, out, validReferral[i-from])
		}
	}
	c.checked = to
	return nil
}

// checkPaymentTexts checks payment i's text fields; seenExternal holds
// the external ids of the request's payments before it.
func checkPaymentTexts(v *Validation, i int, p PaymentInput, seenExternal map[string]int) {
	w := p.WrongTypes
	if !w.report(v, i, fieldFirstname) && v.Text(i, "Firstname", p.Firstname) && len([]rune(p.Firstname)) > 100 {
		v.Add(i, "Firstname", p.Firstname, "firstname is at most 100 characters")
	}
	if !w.report(v, i, fieldLastname) && v.Text(i, "Lastname", p.Lastname) && len([]rune(p.Lastname)) > 100 {
		v.Add(i, "Lastname", p.Lastname, "lastname is at most 100 characters")
	}
	if !w.report(v, i, fieldExternalID) && p.ExternalID != "" && v.Text(i, "ExternalId", p.ExternalID) {
		if len([]rune(p.ExternalID)) > 100 {
			v.Add(i, "ExternalId", p.ExternalID, "externalId is at most 100 characters")
		} else if first, dup := seenExternal[p.ExternalID]; dup {
			v.Add(i, "ExternalId", p.ExternalID, "externalId is used by another payment of this request (index "+strconv.Itoa(first)+")")
		} else {
			seenExternal[p.ExternalID] = i
		}
	}
}

// checkReferral checks payment i's referral, of an organisation with
// referrals, and copies it into out.
func (s *Service) checkReferral(v *Validation, i int, p PaymentInput, out *Payment, validReferral bool) {
	w := p.WrongTypes
	switch {
	case p.ReferralAmount != "" || w.sent(fieldReferralAmount): // a null one is no referral
		out.ReferralAmount = s.amount(v, i, fieldReferralAmount, p.ReferralAmount, w)
		out.ReferralMsisdn = p.ReferralMsisdn
		out.ReferralStatus = PaymentDraft
		if !w.report(v, i, fieldReferralMsisdn) && !validReferral {
			v.Add(i, "ReferralMsisdn", p.ReferralMsisdn, "referralMsisdn is required with a referralAmount and must be an international number")
		}
	case p.ReferralMsisdn != "" || w.sent(fieldReferralMsisdn):
		v.Add(i, "ReferralAmount", w[fieldReferralAmount].Value, "referralAmount is required with a referralMsisdn")
		w.report(v, i, fieldReferralMsisdn)
	}
}

// parallelChecks is the fewest payments whose msisdns are checked on
// several CPUs at once: below it, starting goroutines costs more than it saves.
const parallelChecks = 2000

// validMsisdns checks every payee's msisdn, and every referral's when
// referrals are enabled. Number checks are most of what validation costs
// (BenchmarkValid in internal/msisdn), and each stands alone, so a large
// request spreads them over the CPUs:
// the client waits for the slowest request, not for the sum.
func validMsisdns(in []PaymentInput, referrals bool) (payee, referral []bool, err error) {
	payee, referral = make([]bool, len(in)), make([]bool, len(in))
	err = parallel.For(len(in), parallelChecks, func(from, to int) {
		for i := from; i < to; i++ {
			payee[i] = validMsisdn(in[i].Msisdn)
			referral[i] = referrals && in[i].ReferralMsisdn != "" && validMsisdn(in[i].ReferralMsisdn)
		}
	})
	return payee, referral, err
}

// amount checks one amount: a JSON number with at most two decimals, at
// least 1 and at most the configured maximum; a value of another type
// fails as one with too many decimals does.
func (s *Service) amount(v *Validation, i int, field Field, text Number, w WrongTypes) Money {
	name := jsonName(string(field))
	m, ok := ParseMoney(string(text))
	switch {
	case !ok:
		shown := string(text)
		if t, wrong := w[field]; wrong {
			shown = t.Value
		}
		v.Add(i, string(field), shown, name+" must be a number with at most 2 decimal places, at least 1")
	case m < MinAmount:
		v.Add(i, string(field), string(text), name+" must be at least 1 unit of the currency")
	case m > s.Limits.MaxAmount:
		v.Add(i, string(field), string(text), name+" must be at most "+s.Limits.MaxAmount.String())
	}
	return m
}
