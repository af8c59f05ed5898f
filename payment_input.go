package disburse

import (
	"encoding/json"
	"strconv"
	"strings"
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
	// WrongTypes are the fields the client sent with a JSON type their rule
	// cannot take (a number for msisdn, say), as the reader of the request
	// found them; such a field holds "" and fails with its WrongType instead
	// of its checks. Nil for nearly every payment.
	WrongTypes WrongTypes
}

// WrongTypes are the fields of one input the reader of the request found
// with a JSON type their rule cannot take. Each such field holds its zero
// value and fails with its WrongType instead of its own checks, beside the
// checks of the other fields, so that every failure of a request comes
// back in one array (contract section 2).
type WrongTypes []WrongType

// report adds field's WrongType, if there is one, as a failure at index
// (-1: not a payment's), and reports whether it did.
func (w WrongTypes) report(v *Validation, index int, field string) bool {
	if t := w.of(field); t != nil {
		v.Add(index, t.Field, t.Value, t.Message)
		return true
	}
	return false
}

func (w WrongTypes) of(field string) *WrongType {
	for k := range w {
		if w[k].Field == field {
			return &w[k]
		}
	}
	return nil
}

// WrongType is a value of the wrong JSON type for its field. Field is named
// as the contract names it (Msisdn, ReferralMsisdn), or Payments for a
// payment that is not an object at all; Value is shown as fieldValue shows it.
type WrongType struct {
	Field, Value, Message string
}

// AddPaymentsInput is the body of POST /batches/{id}/payments. ClearExisting
// is a pointer because it is required: nil means the client left it out.
type AddPaymentsInput struct {
	ClearExisting *bool
	WrongTypes    WrongTypes // of ClearExisting
	Payments      []PaymentInput
}

// msisdnMessage explains the msisdn rules of contract section 1.
const msisdnMessage = "msisdn must be an international number: country code first, 8 to 15 digits, no leading zero or plus sign"

// validatePayments checks every payment on its own (spec 4.2, contract 4.1)
// and returns the payments built from the valid inputs. Checks that need the
// database (external ids in use, the batch limit) come later, in the
// transaction, into the same Validation.
func (s *Service) validatePayments(v *Validation, in []PaymentInput, referrals bool) ([]Payment, error) {
	out := make([]Payment, len(in))
	seenExternal := make(map[string]int, len(in))
	validPayee, validReferral, err := validMsisdns(in, referrals)
	if err != nil {
		return nil, err
	}
	for i, p := range in {
		out[i] = Payment{Msisdn: p.Msisdn, Firstname: p.Firstname, Lastname: p.Lastname, ExternalID: p.ExternalID, Status: PaymentDraft}
		// A wrong type is the field's failure; the fields of the right type
		// are still checked, so that one answer lists every failure.
		if p.wrongType(v, i, "Payments") {
			continue // not a payment at all: nothing else to check
		}
		if !p.wrongType(v, i, "Msisdn") && !validPayee[i] {
			v.Add(i, "Msisdn", p.Msisdn, msisdnMessage)
		}
		out[i].Amount = s.amount(v, i, "Amount", p.Amount)
		if !p.wrongType(v, i, "Firstname") && v.Text(i, "Firstname", p.Firstname) && len([]rune(p.Firstname)) > 100 {
			v.Add(i, "Firstname", p.Firstname, "firstname is at most 100 characters")
		}
		if !p.wrongType(v, i, "Lastname") && v.Text(i, "Lastname", p.Lastname) && len([]rune(p.Lastname)) > 100 {
			v.Add(i, "Lastname", p.Lastname, "lastname is at most 100 characters")
		}
		if !p.wrongType(v, i, "ExternalId") && p.ExternalID != "" && v.Text(i, "ExternalId", p.ExternalID) {
			if len([]rune(p.ExternalID)) > 100 {
				v.Add(i, "ExternalId", p.ExternalID, "externalId is at most 100 characters")
			} else if first, dup := seenExternal[p.ExternalID]; dup {
				v.Add(i, "ExternalId", p.ExternalID, "externalId is used by another payment of this request (index "+strconv.Itoa(first)+")")
			} else {
				seenExternal[p.ExternalID] = i
			}
		}
		if !referrals {
			continue // referral fields are ignored: not validated (types included), stored or returned
		}
		hasAmount := p.ReferralAmount != "" && p.ReferralAmount != "null"
		switch {
		case hasAmount:
			out[i].ReferralAmount = s.amount(v, i, "ReferralAmount", p.ReferralAmount)
			out[i].ReferralMsisdn = p.ReferralMsisdn
			out[i].ReferralStatus = PaymentDraft
			if !p.wrongType(v, i, "ReferralMsisdn") && !validReferral[i] {
				v.Add(i, "ReferralMsisdn", p.ReferralMsisdn, "referralMsisdn is required with a referralAmount and must be an international number")
			}
		case p.ReferralMsisdn != "" || p.WrongTypes.of("ReferralMsisdn") != nil:
			v.Add(i, "ReferralAmount", p.ReferralAmount, "referralAmount is required with a referralMsisdn")
			p.wrongType(v, i, "ReferralMsisdn")
		}
	}
	return out, nil
}

// wrongType adds field's WrongType, if the payment has one, as payment i's
// failure, and reports whether it did.
func (p *PaymentInput) wrongType(v *Validation, i int, field string) bool {
	return p.WrongTypes.report(v, i, field)
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
	err = Parallel(len(in), parallelChecks, func(from, to int) {
		for i := from; i < to; i++ {
			payee[i] = ValidMsisdn(in[i].Msisdn)
			referral[i] = referrals && in[i].ReferralMsisdn != "" && ValidMsisdn(in[i].ReferralMsisdn)
		}
	})
	return payee, referral, err
}

// amount checks one amount: a JSON number with at most two decimals, at
// least 1 and at most the configured maximum.
func (s *Service) amount(v *Validation, i int, field, text string) Money {
	m, ok := ParseMoney(text)
	switch {
	case !ok:
		v.Add(i, field, FieldText(text), strings.ToLower(field[:1])+field[1:]+" must be a number with at most 2 decimal places, at least 1")
	case m < MinAmount:
		v.Add(i, field, text, strings.ToLower(field[:1])+field[1:]+" must be at least 1 unit of the currency")
	case m > s.Limits.MaxAmount:
		v.Add(i, field, text, strings.ToLower(field[:1])+field[1:]+" must be at most "+s.Limits.MaxAmount.String())
	}
	return m
}

// FieldText shows a raw JSON value as a failure's fieldValue (docs/decisions.md):
// a string without its quotes, a number or literal as written, an object or
// array by kind only ("object", "array"), so that a failure never echoes a
// whole body back; a missing value is empty.
func FieldText(raw string) string {
	raw = strings.TrimSpace(raw)
	switch {
	case raw == "":
		return ""
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == '"':
		var s string
		if json.Unmarshal([]byte(raw), &s) == nil {
			return ShortValue(s)
		}
	}
	return ShortValue(raw)
}
