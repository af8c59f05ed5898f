package httpapi

import (
	"time"

	"github.com/disburse/disburse"
)

// The response bodies, apart from the domain types so that the wire format
// changes only on purpose. Absent values are omitted (docs/api.md section 1):
// strings and optional amounts with omitempty, times with omitzero.
// Amounts are disburse.Money, which writes two decimals.

// dateTimeLayout is the API's date-time (docs/api.md section 1): UTC,
// seven fractional digits, no offset, the form of the API's samples.
const dateTimeLayout = disburse.DateTimeLayout

// dateTime writes a time in dateTimeLayout; its zero value is omitted with omitzero.
type dateTime time.Time

// IsZero lets omitzero leave out a time that was never set.
func (t dateTime) IsZero() bool { return time.Time(t).IsZero() }

// MarshalJSON writes the time as a JSON string in UTC.
func (t dateTime) MarshalJSON() ([]byte, error) {
	return appendDateTime(make([]byte, 0, len(dateTimeLayout)+2), t), nil
}

// appendDateTime writes t as a JSON string in dateTimeLayout, in UTC. A
// submit's answer holds up to four times a payment, and time.AppendFormat,
// which reads its layout anew at every call, was a twelfth of a submit's
// CPU (docs/benchmarks.md); the digits are written here directly.
// TestAppendDateTimeMatchesFormat holds it to AppendFormat.
func appendDateTime(dst []byte, t dateTime) []byte {
	u := time.Time(t).UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 { // not four digits: AppendFormat's own form
		dst = append(dst, '"')
		return append(u.AppendFormat(dst, dateTimeLayout), '"')
	}
	hour, minute, second := u.Clock()
	dst = append(dst, '"')
	dst = appendDigits(dst, year, 4)
	dst = append(dst, '-')
	dst = appendDigits(dst, int(month), 2)
	dst = append(dst, '-')
	dst = appendDigits(dst, day, 2)
	dst = append(dst, 'T')
	dst = appendDigits(dst, hour, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, minute, 2)
	dst = append(dst, ':')
	dst = appendDigits(dst, second, 2)
	dst = append(dst, '.')
	dst = appendDigits(dst, u.Nanosecond()/100, 7) // truncated to 100 ns, as the layout's seven digits
	return append(dst, '"')
}

// appendDigits writes n, which is not negative, in exactly width digits.
func appendDigits(dst []byte, n, width int) []byte {
	start := len(dst)
	dst = append(dst, "0000000"[:width]...)
	for i := len(dst) - 1; i >= start && n > 0; i-- {
		dst[i] = byte('0' + n%10)
		n /= 10
	}
	return dst
}

type batchJSON struct {
	ID          string               `json:"id"`
	Name        string               `json:"name"`
	ExternalID  string               `json:"externalId,omitempty"`
	AccountID   string               `json:"accountId"`
	StatusCode  disburse.BatchStatus `json:"statusCode"`
	CreatedAt   dateTime             `json:"createdAt,omitzero"`
	SubmittedAt dateTime             `json:"submittedAt,omitzero"`
	// ApprovalID is the approval a DRAFT batch's submit waits for, while
	// it waits (docs/api.md section 4.3).
	ApprovalID string      `json:"approvalId,omitempty"`
	Summary    summaryJSON `json:"summary"`
	// add-payments and submit follow it with "payments" (docs/api.md section
	// 4), written one by one by writeBatchWithPayments.
}

// summaryJSON always carries every total, zero included (docs/api.md section 4.2).
type summaryJSON struct {
	PaymentsAmount  disburse.Money `json:"paymentsAmount"`
	PaymentsCount   int64          `json:"paymentsCount"`
	ReferralsAmount disburse.Money `json:"referralsAmount"`
	SettledAmount   disburse.Money `json:"settledAmount"`
	SettledCount    int64          `json:"settledCount"`
	CancelledAmount disburse.Money `json:"cancelledAmount"`
	CancelledCount  int64          `json:"cancelledCount"`
	PendingAmount   disburse.Money `json:"pendingAmount"`
	PendingCount    int64          `json:"pendingCount"`
}

func toBatch(b disburse.Batch) batchJSON {
	s := b.Summary
	return batchJSON{
		ID: b.ID, Name: b.Name, ExternalID: b.ExternalID, AccountID: b.AccountID, StatusCode: b.Status,
		CreatedAt: dateTime(b.CreatedAt), SubmittedAt: dateTime(b.SubmittedAt), ApprovalID: b.ApprovalID,
		Summary: summaryJSON{
			PaymentsAmount: s.PaymentsAmount, PaymentsCount: s.PaymentsCount, ReferralsAmount: s.ReferralsAmount,
			SettledAmount: s.SettledAmount, SettledCount: s.SettledCount,
			CancelledAmount: s.CancelledAmount, CancelledCount: s.CancelledCount,
			PendingAmount: s.PendingAmount, PendingCount: s.PendingCount,
		},
	}
}

// toList converts a list for a response; never nil, so an empty list is [] and not null.
func toList[T, J any](in []T, convert func(T) J) []J {
	out := make([]J, len(in))
	for i, v := range in {
		out[i] = convert(v)
	}
	return out
}

func toPayments(ps []disburse.Payment) []paymentJSON { return toList(ps, toPayment) }

type accountJSON struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Currency    string         `json:"currency"`
	Balance     disburse.Money `json:"balance"`
	HeldBalance disburse.Money `json:"heldBalance"`
	IsDefault   bool           `json:"isDefault"`
}

func toAccount(a disburse.Account) accountJSON {
	return accountJSON{ID: a.ID, Name: a.Name, Currency: a.Currency, Balance: a.Balance, HeldBalance: a.HeldBalance, IsDefault: a.IsDefault}
}

type organisationJSON struct {
	ID                    string `json:"id"`
	Name                  string `json:"name"`
	Currency              string `json:"currency"`
	ReferralsEnabled      bool   `json:"referralsEnabled"`
	ReversalPeriodSeconds int64  `json:"reversalPeriodSeconds"`
	// ApprovalThreshold is left out while approval is off (docs/api.md
	// section 4.3), as every absent value is.
	ApprovalThreshold *disburse.Money `json:"approvalThreshold,omitempty"`
	// APIVersion, shown in version 2026-12-01's answers alone
	// (withAPIVersion), is its default version (docs/versioning.md).
	APIVersion string        `json:"apiVersion,omitempty"`
	Accounts   []accountJSON `json:"accounts"`
	Sandbox    bool          `json:"sandbox,omitempty"` // docs/sandbox.md; absent for a live organisation
}

func toOrganisation(o disburse.Organisation, accounts []disburse.Account) organisationJSON {
	return organisationJSON{
		ID: o.ID, Name: o.Name, Currency: o.Currency, ReferralsEnabled: o.ReferralsEnabled,
		ReversalPeriodSeconds: int64(o.ReversalPeriod / time.Second), ApprovalThreshold: o.ApprovalThreshold,
		Accounts: toList(accounts, toAccount), Sandbox: o.Sandbox,
	}
}

type tokenJSON struct {
	AccessToken string `json:"accessToken"`
	TokenType   string `json:"tokenType"`
	ExpiresIn   int64  `json:"expiresIn"` // seconds
}

// apiKeyJSON is a new key's answer: its id and the key, exactly
// docs/api.md section 7's two members (its role shows in the list).
type apiKeyJSON struct {
	ID     string `json:"id"`
	APIKey string `json:"apiKey"`
}

type transferJSON struct {
	ID        string         `json:"id"`
	AccountID string         `json:"accountId"`
	Amount    disburse.Money `json:"amount"`
	Reference string         `json:"reference,omitempty"`
	CreatedAt dateTime       `json:"createdAt,omitzero"`
}

type memberJSON struct {
	Msisdn       string   `json:"msisdn"`
	Firstname    string   `json:"firstname,omitempty"`
	Lastname     string   `json:"lastname,omitempty"`
	AppInstalled bool     `json:"appInstalled"`
	RegisteredAt dateTime `json:"registeredAt,omitzero"`
}

type memberExistsJSON struct {
	Msisdn string `json:"msisdn"`
	Exists bool   `json:"exists"`
}

type statementJSON struct {
	Msisdn  string               `json:"msisdn"`
	Balance disburse.Money       `json:"balance"`
	Entries []statementEntryJSON `json:"entries"`
}

type statementEntryJSON struct {
	PaymentID        string         `json:"paymentId"`
	OrganisationName string         `json:"organisationName"`
	Amount           disburse.Money `json:"amount"`
	SettledAt        dateTime       `json:"settledAt,omitzero"`
	Leg              disburse.Leg   `json:"leg"`      // extension: PAYMENT or REFERRAL
	Currency         string         `json:"currency"` // extension
}

// toStatement sums the member's wallets into one balance: a deployment pays
// in one currency as a rule, and each entry names its currency.
func toStatement(s disburse.Statement) statementJSON {
	out := statementJSON{Msisdn: s.Msisdn}
	for _, w := range s.Wallets {
		out.Balance += w.Balance
	}
	out.Entries = toList(s.Entries, func(e disburse.StatementEntry) statementEntryJSON {
		return statementEntryJSON{
			PaymentID: e.PaymentID, OrganisationName: e.OrganisationName, Amount: e.Amount,
			SettledAt: dateTime(e.SettledAt), Leg: e.Leg, Currency: e.Currency,
		}
	})
	return out
}

type notificationJSON struct {
	ID        string                      `json:"id"`
	Channel   disburse.Channel            `json:"channel"`
	Recipient string                      `json:"recipient"`
	Message   string                      `json:"message"`
	Status    disburse.NotificationStatus `json:"status"`
	Attempts  int                         `json:"attempts"`
	CreatedAt dateTime                    `json:"createdAt,omitzero"`
	SentAt    dateTime                    `json:"sentAt,omitzero"`
	LastError string                      `json:"lastError,omitempty"`
}

func toNotification(n disburse.Notification) notificationJSON {
	return notificationJSON{
		ID: n.ID, Channel: n.Channel, Recipient: n.Recipient, Message: n.Message, Status: n.Status,
		Attempts: n.Attempts, CreatedAt: dateTime(n.CreatedAt), SentAt: dateTime(n.SentAt), LastError: n.LastError,
	}
}

type ledgerJSON struct {
	OK       bool     `json:"ok"`
	Problems []string `json:"problems"`
}

type healthJSON struct {
	Status string `json:"status"`
}
