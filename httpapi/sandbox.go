package httpapi

import (
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/sandbox"
)

// The sandbox's own routes (docs/sandbox.md, docs/api.md section 10):
// what happens live outside the API, on demand. A live organisation's
// token finds none of them (404).

type sandboxMemberRequest struct {
	Msisdn string `json:"msisdn"`
}

type sandboxDepositRequest struct {
	Amount    disburse.Number `json:"amount"`
	Currency  string          `json:"currency"`
	AccountID string          `json:"accountId"`
	Reference string          `json:"reference"`
}

// sandboxMemberJSON is a sandbox registration's answer: the member, and
// how many legs pending to it this registration settled.
type sandboxMemberJSON struct {
	Msisdn          string   `json:"msisdn"`
	RegisteredAt    dateTime `json:"registeredAt"`
	SettledPayments int      `json:"settledPayments"`
}

// registerSandboxMember answers 201 with a new member of the sandbox, or
// 200 with one registered already, unchanged, as POST /admin/members does.
func (s *server) registerSandboxMember(w http.ResponseWriter, r *http.Request, orgID string) error {
	var req sandboxMemberRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	reg, err := sandbox.RegisterMember(r.Context(), s.svc, orgID, req.Msisdn)
	if err != nil {
		return err
	}
	return writeJSON(w, memberStatus(reg.Created), toSandboxMember(reg))
}

// toSandboxMember is a sandbox registration's answer (the handler's and
// its renderer's).
func toSandboxMember(reg disburse.SandboxRegistration) sandboxMemberJSON {
	return sandboxMemberJSON{Msisdn: reg.Member.Msisdn, RegisteredAt: dateTime(reg.Member.RegisteredAt), SettledPayments: reg.Settled}
}

// expireSandboxBatch answers the batch once its held legs are reversed
// (or settled, to the sandbox's members), as a cancel answers.
func (s *server) expireSandboxBatch(w http.ResponseWriter, r *http.Request, orgID string) error {
	b, _, err := sandbox.ExpireBatch(r.Context(), s.svc, orgID, r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toBatch(b))
}

// sandboxDeposit answers 201 with the deposit's transfer, as the
// operator's deposit does.
func (s *server) sandboxDeposit(w http.ResponseWriter, r *http.Request, orgID string) error {
	var req sandboxDepositRequest
	if err := decode(r, &req); err != nil {
		return err
	}
	t, err := sandbox.Deposit(r.Context(), s.svc, orgID, req.AccountID, string(req.Amount), req.Currency, req.Reference)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toTransfer(t))
}
