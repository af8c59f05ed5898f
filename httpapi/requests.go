package httpapi

import "github.com/disburse/disburse"

// The request bodies that have no input type in the domain. The
// organisation API's bodies are decoded straight into the domain's inputs
// (disburse.BatchInput, disburse.AddPaymentsInput), which carry their
// wrong types to its checks.

type tokenRequest struct {
	APIKey string `json:"apiKey"`
}

// The operator API's bodies (docs/api.md section 7).

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

// apiKeyRequest's role is one of docs/api.md section 3.1; empty: admin.
type apiKeyRequest struct {
	Role string `json:"role"`
}

// depositRequest's amount is a JSON number's text, checked exactly by the
// domain (docs/api.md section 1).
type depositRequest struct {
	Amount    disburse.Number `json:"amount"`
	Reference string          `json:"reference"`
}

type memberRequest struct {
	Msisdn       string `json:"msisdn"`
	Firstname    string `json:"firstname"`
	Lastname     string `json:"lastname"`
	AppInstalled bool   `json:"appInstalled"`
}
