package httpapi

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/disburse/disburse"
)

// appendPayment appends the bytes of json.Marshal(toPayment(p)), without
// reflection: a submit writes up to a million payments, and json.Marshal
// of each was a large share of a submit's CPU (docs/benchmarks.md). paymentJSON
// stays the reference; TestAppendPaymentMatchesMarshal holds the two equal,
// field order and omitempty/omitzero included.
func appendPayment(dst []byte, p disburse.Payment) []byte {
	dst = append(dst, `{"id":`...)
	dst = appendString(dst, p.ID)
	dst = append(dst, `,"batchId":`...)
	dst = appendString(dst, p.BatchID)
	dst = append(dst, `,"msisdn":`...)
	dst = appendString(dst, p.Msisdn)
	dst = append(dst, `,"amount":`...)
	dst = append(dst, p.Amount.String()...)
	dst = appendOmitEmpty(dst, `,"firstname":`, p.Firstname)
	dst = appendOmitEmpty(dst, `,"lastname":`, p.Lastname)
	dst = appendOmitEmpty(dst, `,"externalId":`, p.ExternalID)
	dst = append(dst, `,"statusCode":`...)
	dst = appendString(dst, string(p.Status))
	dst = appendOmitZero(dst, `,"settledAt":`, p.SettledAt)
	dst = append(dst, `,"isMember":`...)
	dst = strconv.AppendBool(dst, p.IsMember)
	if p.ReferralAmount != 0 {
		dst = append(dst, `,"referralAmount":`...)
		dst = append(dst, p.ReferralAmount.String()...)
	}
	dst = appendOmitEmpty(dst, `,"referralMsisdn":`, p.ReferralMsisdn)
	dst = appendOmitEmpty(dst, `,"referralStatusCode":`, string(p.ReferralStatus))
	dst = appendOmitZero(dst, `,"createdAt":`, p.CreatedAt)
	dst = appendOmitZero(dst, `,"submittedAt":`, p.SubmittedAt)
	dst = appendOmitZero(dst, `,"reversalDueAt":`, p.ReversalDueAt)
	dst = appendOmitZero(dst, `,"cancelledAt":`, p.CancelledAt)
	return append(dst, '}')
}

// appendOmitEmpty writes key and s unless s is empty, as omitempty does.
func appendOmitEmpty(dst []byte, key, s string) []byte {
	if s == "" {
		return dst
	}
	return appendString(append(dst, key...), s)
}

// appendOmitZero writes key and t unless t.IsZero, as omitzero does with
// dateTime, and t as dateTime.MarshalJSON writes it.
func appendOmitZero(dst []byte, key string, t time.Time) []byte {
	if t.IsZero() {
		return dst
	}
	dst = append(dst, key...)
	dst = append(dst, '"')
	dst = t.UTC().AppendFormat(dst, dateTimeLayout)
	return append(dst, '"')
}

// appendString writes s as a JSON string. Identifiers, numbers and most
// names are printable ASCII that needs no escape and are copied as they
// are; anything else goes to json.Marshal, whose escaping (HTML characters,
// U+2028 and U+2029, invalid UTF-8, control characters) is then the same
// by construction.
func appendString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			b, _ := json.Marshal(s) // a string always marshals
			return append(dst, b...)
		}
	}
	dst = append(dst, '"')
	dst = append(dst, s...)
	return append(dst, '"')
}
