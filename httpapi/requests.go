package httpapi

import (
	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

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
	APIVersion         string `json:"apiVersion"`
	Sandbox            bool   `json:"sandbox"`
}

// settingsRequest keeps its wrong types: a null approvalThreshold is one
// (a number is due), and means approval off (docs/api.md section 4.3).
type settingsRequest struct {
	ReferralsEnabled      *bool               `json:"referralsEnabled"`
	ReversalPeriodDays    *int64              `json:"reversalPeriodDays"`
	ReversalPeriodSeconds *int64              `json:"reversalPeriodSeconds"`
	ApprovalThreshold     disburse.Number     `json:"approvalThreshold"`
	APIVersion            string              `json:"apiVersion"` // empty: left as it is
	WrongTypes            disburse.WrongTypes `json:"-"`
}

// settings is the domain's change: an approvalThreshold absent leaves the
// threshold, null turns approval off, a number sets it. Any other wrong
// type is a 400, as decode answers it for the operator's bodies.
func (req *settingsRequest) settings() (organisations.Settings, error) {
	in := organisations.Settings{ReferralsEnabled: req.ReferralsEnabled, ReversalPeriodDays: req.ReversalPeriodDays, ReversalPeriodSeconds: req.ReversalPeriodSeconds}
	if req.APIVersion != "" {
		in.APIVersion = &req.APIVersion
	}
	const field = disburse.Field("ApprovalThreshold")
	switch t, wrong := req.WrongTypes[field]; {
	case wrong && t.Null:
		in.ApprovalThreshold = &organisations.ThresholdSetting{Off: true}
		delete(req.WrongTypes, field)
	case !wrong && req.ApprovalThreshold != "":
		in.ApprovalThreshold = &organisations.ThresholdSetting{Amount: req.ApprovalThreshold}
	}
	return in, wrongTypesError(req, req.WrongTypes)
}

// decisionRequest is the optional body of an approval's approve or reject.
type decisionRequest struct {
	Comment string `json:"comment"`
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
