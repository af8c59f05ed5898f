package disburse

import (
	"runtime"
	"strconv"
	"strings"
	"sync"
)

// PaymentInput is one payment of POST /batches/{id}/payments as the client
// sent it. Amounts hold the JSON value's raw text ("150.00", "1e2", "\"10\"",
// "null", or "" when absent) so that they are checked exactly, never through
// a float (contract section 1).
type PaymentInput struct {
	Msisdn         string
	Amount         string
	Firstname      string
	Lastname       string
	ExternalID     string
	ReferralAmount string
	ReferralMsisdn string
}

// AddPaymentsInput is the body of POST /batches/{id}/payments. ClearExisting
// is a pointer because it is required: nil means the client left it out.
type AddPaymentsInput struct {
	ClearExisting *bool
	Payments      []PaymentInput
}

// msisdnMessage explains the msisdn rules of contract section 1.
const msisdnMessage = "msisdn must be an international number: country code first, 8 to 15 digits, no leading zero or plus sign"

// validatePayments checks every payment on its own (spec 4.2, contract 4.1)
// and returns the payments built from the valid inputs. Checks that need the
// database (external ids in use, the batch limit) come later, in the
// transaction, into the same Validation.
func (s *Service) validatePayments(v *Validation, in []PaymentInput, referrals bool) []Payment {
	out := make([]Payment, len(in))
	seenExternal := make(map[string]int, len(in))
	validPayee, validReferral := validMsisdns(in, referrals)
	for i, p := range in {
		out[i] = Payment{Msisdn: p.Msisdn, Firstname: p.Firstname, Lastname: p.Lastname, ExternalID: p.ExternalID, Status: PaymentDraft}
		if !validPayee[i] {
			v.Add(i, "Msisdn", p.Msisdn, msisdnMessage)
		}
		out[i].Amount = s.amount(v, i, "Amount", p.Amount)
		if len([]rune(p.Firstname)) > 100 {
			v.Add(i, "Firstname", p.Firstname, "firstname is at most 100 characters")
		}
		if len([]rune(p.Lastname)) > 100 {
			v.Add(i, "Lastname", p.Lastname, "lastname is at most 100 characters")
		}
		if p.ExternalID != "" {
			if len([]rune(p.ExternalID)) > 100 {
				v.Add(i, "ExternalId", p.ExternalID, "externalId is at most 100 characters")
			} else if first, dup := seenExternal[p.ExternalID]; dup {
				v.Add(i, "ExternalId", p.ExternalID, "externalId is used by another payment of this request (index "+strconv.Itoa(first)+")")
			} else {
				seenExternal[p.ExternalID] = i
			}
		}
		if !referrals {
			continue // referral fields are ignored: not validated, stored or returned
		}
		hasAmount := p.ReferralAmount != "" && p.ReferralAmount != "null"
		switch {
		case hasAmount:
			out[i].ReferralAmount = s.amount(v, i, "ReferralAmount", p.ReferralAmount)
			out[i].ReferralMsisdn = p.ReferralMsisdn
			out[i].ReferralStatus = PaymentDraft
			if !validReferral[i] {
				v.Add(i, "ReferralMsisdn", p.ReferralMsisdn, "referralMsisdn is required with a referralAmount and must be an international number")
			}
		case p.ReferralMsisdn != "":
			v.Add(i, "ReferralAmount", p.ReferralAmount, "referralAmount is required with a referralMsisdn")
		}
	}
	return out
}

// parallelChecks is the fewest payments whose msisdns are checked on
// several CPUs at once: below it, starting goroutines costs more than it saves.
const parallelChecks = 2000

// validMsisdns checks every payee's msisdn, and every referral's when
// referrals are enabled. libphonenumber's parsing is most of what
// validation costs (a quarter of adding 100,000 payments, in a profile),
// and each check stands alone, so a large request spreads them over the
// CPUs: the client waits for the slowest request, not for the sum.
func validMsisdns(in []PaymentInput, referrals bool) (payee, referral []bool) {
	payee, referral = make([]bool, len(in)), make([]bool, len(in))
	check := func(from, to int) {
		for i := from; i < to; i++ {
			payee[i] = ValidMsisdn(in[i].Msisdn)
			referral[i] = referrals && in[i].ReferralMsisdn != "" && ValidMsisdn(in[i].ReferralMsisdn)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(in) < parallelChecks || workers == 1 {
		check(0, len(in))
		return payee, referral
	}
	var wg sync.WaitGroup
	per := (len(in) + workers - 1) / workers
	for from := 0; from < len(in); from += per {
		wg.Go(func() { check(from, min(from+per, len(in))) })
	}
	wg.Wait()
	return payee, referral
}

// amount checks one amount: a JSON number with at most two decimals, at
// least 1 and at most the configured maximum.
func (s *Service) amount(v *Validation, i int, field, text string) Money {
	m, ok := ParseMoney(text)
	switch {
	case !ok:
		v.Add(i, field, fieldText(text), strings.ToLower(field[:1])+field[1:]+" must be a number with at most 2 decimal places, at least 1")
	case m < MinAmount:
		v.Add(i, field, text, strings.ToLower(field[:1])+field[1:]+" must be at least 1 unit of the currency")
	case m > s.Limits.MaxAmount:
		v.Add(i, field, text, strings.ToLower(field[:1])+field[1:]+" must be at most "+s.Limits.MaxAmount.String())
	}
	return m
}

// fieldText shows a raw JSON value as the client would recognise it: a JSON
// string without its quotes, a missing value as empty.
func fieldText(raw string) string {
	if len(raw) >= 2 && raw[0] == '"' && raw[len(raw)-1] == '"' {
		return raw[1 : len(raw)-1]
	}
	return raw
}
