package httpapi

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/disburse/disburse"
)

// The request bodies, apart from the domain's inputs. Money is kept as the
// JSON value's raw text (json.RawMessage) and handed to the domain as text,
// which checks it exactly: never through a float64 (contract section 1).

type tokenRequest struct {
	APIKey string `json:"apiKey"`
}

// batchRequest is the body of POST /batches and PUT /batches/{id} (PUT
// ignores accountId: a batch keeps the account it was created with).
type batchRequest struct {
	Name       string `json:"name"`
	ExternalID string `json:"externalId"`
	AccountID  string `json:"accountId"`
	wrongTypes disburse.WrongTypes
}

func (r *batchRequest) input() disburse.BatchInput {
	return disburse.BatchInput{Name: r.Name, ExternalID: r.ExternalID, AccountID: r.AccountID, WrongTypes: r.wrongTypes}
}

func (r *batchRequest) passOn(w disburse.WrongTypes) { r.wrongTypes = w }

type addPaymentsRequest struct {
	// ClearExisting is a pointer so that absent (a 400) differs from false.
	ClearExisting *bool       `json:"clearExisting"`
	Payments      paymentList `json:"payments"`
	wrongTypes    disburse.WrongTypes
}

func (r *addPaymentsRequest) input() disburse.AddPaymentsInput {
	return disburse.AddPaymentsInput{ClearExisting: r.ClearExisting, Payments: r.Payments.items, WrongTypes: r.wrongTypes}
}

func (r *addPaymentsRequest) passOn(w disburse.WrongTypes) { r.wrongTypes = w }

// ownFailures: a payments member that is not an array, which decode reports.
func (r *addPaymentsRequest) ownFailures() []disburse.FieldError { return r.Payments.failures }

// passedOn are the payments' wrong types, which the domain reports with
// its own checks. decode reports them only when the body fails before
// reaching the domain, and then not the referral fields': whether those
// are checked at all is the organisation's setting (contract 4.1).
func (r *addPaymentsRequest) passedOn() []disburse.FieldError {
	var out []disburse.FieldError
	for i, p := range r.Payments.items {
		for _, w := range p.WrongTypes {
			if w.Field != "ReferralMsisdn" { // amounts are kept as text: never a WrongType
				out = append(out, disburse.FieldError{FieldName: w.Field, FieldValue: w.Value, ErrorMessage: w.Message, Index: &i})
			}
		}
	}
	return out
}

type paymentRequest struct {
	Msisdn         string          `json:"msisdn"`
	Amount         json.RawMessage `json:"amount"`
	Firstname      string          `json:"firstname"`
	Lastname       string          `json:"lastname"`
	ExternalID     string          `json:"externalId"`
	ReferralAmount json.RawMessage `json:"referralAmount"`
	ReferralMsisdn string          `json:"referralMsisdn"`
}

// paymentFields is a payment with every field kept as sent, to tell which
// ones have the wrong type.
type paymentFields struct {
	Msisdn         json.RawMessage `json:"msisdn"`
	Amount         json.RawMessage `json:"amount"`
	Firstname      json.RawMessage `json:"firstname"`
	Lastname       json.RawMessage `json:"lastname"`
	ExternalID     json.RawMessage `json:"externalId"`
	ReferralAmount json.RawMessage `json:"referralAmount"`
	ReferralMsisdn json.RawMessage `json:"referralMsisdn"`
}

// paymentList decodes the payments array straight into the domain's
// inputs (no second copy of 100,000 payments), its elements split by
// arrayElements and decoded on every CPU: decoding was a third of the
// service's CPU in adding payments, and the client waits for it. A payment
// with a wrong type does not stop it: the payment is read again field by
// field and goes to the domain with its WrongTypes, which are reported
// with the domain's checks of the other fields, all in one array
// (contract section 2).
type paymentList struct {
	items    []disburse.PaymentInput
	failures []disburse.FieldError
}

// UnmarshalJSON never fails: the outer decode has checked the syntax, and
// a payments member that is not an array is kept in l.failures.
func (l *paymentList) UnmarshalJSON(data []byte) error {
	*l = paymentList{} // a repeated "payments" replaces, as encoding/json does
	if string(data) == "null" {
		return nil
	}
	elems, ok := arrayElements(data)
	if !ok {
		l.failures = append(l.failures, disburse.FieldError{FieldName: "Payments", FieldValue: valueText(data), ErrorMessage: "payments must be an array of payments"})
		return nil
	}
	var unread int
	var err error
	if l.items, unread, err = decodePayments(elems); err != nil {
		return err // a bug, not the client's: a 500 (decodeBytes)
	}
	if unread >= 0 { // cannot happen after the outer syntax check
		l.items = l.items[:unread]
		l.failures = append(l.failures, disburse.FieldError{FieldName: "Payments", Index: &unread, ErrorMessage: "payments[" + strconv.Itoa(unread) + "] could not be read"})
	}
	return nil
}

// decodePayments decodes the payments array's elements on every CPU. It
// is shared by UnmarshalJSON and decodeFast so that both give the same
// items. unread is the index of the first element that is not valid JSON,
// or -1: the fast path has not had the body checked, and gives up on it.
// err is a panic of a decoding goroutine.
func decodePayments(elems [][]byte) (items []disburse.PaymentInput, unread int, err error) {
	items = make([]disburse.PaymentInput, len(elems))
	bad := make([]bool, len(elems))
	err = disburse.Parallel(len(elems), parallelDecodes, func(from, to int) {
		for i := from; i < to; i++ {
			decodePayment(elems, items, bad, i)
		}
	})
	return items, slices.Index(bad, true), err
}

// decodePayment decodes element i into items[i], or marks it bad when it
// is not valid JSON.
func decodePayment(elems [][]byte, items []disburse.PaymentInput, bad []bool, i int) {
	var p paymentRequest
	err := json.Unmarshal(elems[i], &p)
	switch {
	case err == nil: // nearly always: one pass, no per-field work
		items[i] = disburse.PaymentInput{
			Msisdn: p.Msisdn, Amount: string(p.Amount), Firstname: p.Firstname, Lastname: p.Lastname,
			ExternalID: p.ExternalID, ReferralAmount: string(p.ReferralAmount), ReferralMsisdn: p.ReferralMsisdn,
		}
	case isTypeError(err):
		items[i] = typedPayment(elems[i], i)
	default: // a syntax error
		bad[i] = true
	}
}

// typedPayment reads payment i, which has a value of the wrong type, field
// by field: every wrong type becomes a WrongType, the rest is kept.
func typedPayment(elem []byte, i int) disburse.PaymentInput {
	var f paymentFields
	if json.Unmarshal(elem, &f) != nil {
		return disburse.PaymentInput{WrongTypes: []disburse.WrongType{{
			Field: "Payments", Value: valueText(elem), Message: "payments[" + strconv.Itoa(i) + "] must be a JSON object",
		}}}
	}
	in := disburse.PaymentInput{Amount: string(f.Amount), ReferralAmount: string(f.ReferralAmount)}
	in.Msisdn = stringField(&in, "Msisdn", f.Msisdn)
	in.Firstname = stringField(&in, "Firstname", f.Firstname)
	in.Lastname = stringField(&in, "Lastname", f.Lastname)
	in.ExternalID = stringField(&in, "ExternalId", f.ExternalID)
	in.ReferralMsisdn = stringField(&in, "ReferralMsisdn", f.ReferralMsisdn)
	return in
}

// stringField is raw as a string, or "" and a WrongType in in when raw is
// not a JSON string. Absent and null are "", as encoding/json has them.
func stringField(in *disburse.PaymentInput, field string, raw json.RawMessage) string {
	var s string
	if len(raw) == 0 || json.Unmarshal(raw, &s) == nil {
		return s
	}
	in.WrongTypes = append(in.WrongTypes, disburse.WrongType{
		Field: field, Value: valueText(raw), Message: strings.ToLower(field[:1]) + field[1:] + " must be a string",
	})
	return ""
}

func isTypeError(err error) bool {
	var te *json.UnmarshalTypeError
	return errors.As(err, &te)
}

// The operator API's bodies (contract section 7).

type organisationRequest struct {
	Name               string `json:"name"`
	Currency           string `json:"currency"`
	ReferralsEnabled   bool   `json:"referralsEnabled"`
	ReversalPeriodDays *int64 `json:"reversalPeriodDays"`
}

type settingsRequest struct {
	ReferralsEnabled      *bool  `json:"referralsEnabled"`
	ReversalPeriodDays    *int64 `json:"reversalPeriodDays"`
	ReversalPeriodSeconds *int64 `json:"reversalPeriodSeconds"`
}

type accountRequest struct {
	Name string `json:"name"`
}

type depositRequest struct {
	Amount    json.RawMessage `json:"amount"`
	Reference string          `json:"reference"`
}

type memberRequest struct {
	Msisdn       string `json:"msisdn"`
	Firstname    string `json:"firstname"`
	Lastname     string `json:"lastname"`
	AppInstalled bool   `json:"appInstalled"`
}

// valueText shows a raw JSON value in a failure's fieldValue, as the
// domain shows its own (disburse.FieldText).
func valueText(raw []byte) string { return disburse.FieldText(string(raw)) }
