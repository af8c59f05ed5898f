package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
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
}

type addPaymentsRequest struct {
	// ClearExisting is a pointer so that absent (a 400) differs from false.
	ClearExisting *bool       `json:"clearExisting"`
	Payments      paymentList `json:"payments"`
}

func (r *addPaymentsRequest) input() disburse.AddPaymentsInput {
	return disburse.AddPaymentsInput{ClearExisting: r.ClearExisting, Payments: r.Payments.items}
}

// typeFailures are the payments that had a field of the wrong type.
func (r *addPaymentsRequest) typeFailures() []disburse.FieldError { return r.Payments.failures }

type paymentRequest struct {
	Msisdn         string          `json:"msisdn"`
	Amount         json.RawMessage `json:"amount"`
	Firstname      string          `json:"firstname"`
	Lastname       string          `json:"lastname"`
	ExternalID     string          `json:"externalId"`
	ReferralAmount json.RawMessage `json:"referralAmount"`
	ReferralMsisdn string          `json:"referralMsisdn"`
}

// paymentList decodes the payments array one element at a time, straight
// into the domain's inputs (no second copy of 100,000 payments), and records
// a wrong type with the payment's index instead of stopping, so that every
// such failure reaches the client in one array (contract section 2).
type paymentList struct {
	items    []disburse.PaymentInput
	failures []disburse.FieldError
}

// UnmarshalJSON never fails: the outer decode has checked the syntax, and
// type failures are kept in l.failures for decode to report.
func (l *paymentList) UnmarshalJSON(data []byte) error {
	*l = paymentList{} // a repeated "payments" replaces, as encoding/json does
	if string(data) == "null" {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		l.failures = append(l.failures, disburse.FieldError{FieldName: "Payments", FieldValue: valueText(data), ErrorMessage: "payments must be an array of payments"})
		return nil
	}
	for i := 0; dec.More(); i++ {
		start := dec.InputOffset()
		var p paymentRequest
		if err := dec.Decode(&p); err != nil {
			elem := bytes.TrimLeft(data[start:dec.InputOffset()], ", \t\r\n")
			l.failures = append(l.failures, typeFailure(err, elem, "Payments", i))
			if !isTypeError(err) {
				return nil // cannot happen after the outer syntax check, but never loop on it
			}
		}
		l.items = append(l.items, disburse.PaymentInput{
			Msisdn: p.Msisdn, Amount: string(p.Amount), Firstname: p.Firstname, Lastname: p.Lastname,
			ExternalID: p.ExternalID, ReferralAmount: string(p.ReferralAmount), ReferralMsisdn: p.ReferralMsisdn,
		})
	}
	return nil
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

// valueText shows a raw JSON value in a failure's fieldValue: a string
// without its quotes, a scalar as written, and an object or array by kind
// only, so that a failure never echoes a whole body back.
func valueText(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	switch {
	case len(raw) == 0:
		return ""
	case raw[0] == '{':
		return "object"
	case raw[0] == '[':
		return "array"
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return strings.TrimSpace(string(raw))
}
