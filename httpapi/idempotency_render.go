package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
	"github.com/disburse/disburse/idempotency"
	"github.com/disburse/disburse/webhooks"
)

// answerRenderers make a route's answer from what its transaction wrote
// (idempotency.Written), so that the answer is kept in the same transaction
// as the work: a process that stops after the commit leaves a key that
// replays. Each makes the bytes its handler writes, from the same values.
// Every POST that takes a key has one. A submit's makes only the 202 of
// an approval requested: a submit that paid is rebuilt from the batch on
// replay (docs/idempotency.md). Answers with a
// secret in clear (an API key, a webhook's signing secret) are made here
// too: the key's row keeps them sealed by the Idempotency-Key.
// Keyed by the route's pattern.
var answerRenderers = map[string]func(idempotency.Written) (idempotency.Answer, bool){
	"POST /batches": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.Batch == nil {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusCreated, toBatch(*w.Batch), "Location", "/batches/"+w.Batch.ID)
	},
	"POST /batches/{id}/payments": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.Batch == nil || len(w.Payments) == 0 {
			return idempotency.Answer{}, false
		}
		var out bufferedAnswer
		if err := writeBatchWithPayments(&out, *w.Batch, onePage(w.Payments)); err != nil {
			return idempotency.Answer{}, false
		}
		return out.answer(), true
	},
	"POST /batches/{id}/submit": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.Approval == nil || w.Approval.Status != disburse.ApprovalPending {
			return idempotency.Answer{}, false // paid: rebuilt on replay
		}
		return approvalRequested(*w.Approval)
	},
	"POST /approvals/{id}/approve": renderDecision,
	"POST /approvals/{id}/reject":  renderDecision,
	"POST /batches/{id}/cancel":    renderBatch,
	// An expire ends with the batch CLOSED: the last batch written.
	"POST /sandbox/batches/{id}/expire": renderBatch,
	"POST /webhooks": func(w idempotency.Written) (idempotency.Answer, bool) {
		e, ok := w.Feature.(webhooks.Endpoint)
		if !ok {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusCreated, toWebhookWithSecret(e), "Location", "/webhooks/"+e.ID)
	},
	"POST /webhooks/{id}/rotateSecret": func(w idempotency.Written) (idempotency.Answer, bool) {
		e, ok := w.Feature.(webhooks.Endpoint)
		if !ok {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusOK, toWebhookWithSecret(e))
	},
	"POST /webhooks/{id}/deliveries/{deliveryId}/retry": func(w idempotency.Written) (idempotency.Answer, bool) {
		d, ok := w.Feature.(webhooks.Delivery)
		if !ok {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusAccepted, toDelivery(d))
	},
	"POST /admin/webhooks/{id}/disable": func(w idempotency.Written) (idempotency.Answer, bool) {
		e, ok := w.Feature.(webhooks.Endpoint)
		if !ok {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusOK, toAdminWebhook(e))
	},
	"POST /admin/organisations/{id}/apiKeys": func(w idempotency.Written) (idempotency.Answer, bool) {
		k, ok := w.Feature.(auth.APIKey)
		if !ok || k.Secret == "" {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusCreated, toAPIKey(k))
	},
	"POST /admin/organisations": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.Organisation == nil {
			return idempotency.Answer{}, false
		}
		var payout []disburse.Account
		for _, a := range w.Accounts {
			if a.Kind == disburse.AccountPayout {
				payout = append(payout, a)
			}
		}
		return jsonAnswer(http.StatusCreated, toOrganisation(*w.Organisation, payout), "Location", "/admin/organisations/"+w.Organisation.ID)
	},
	"POST /admin/organisations/{id}/accounts": func(w idempotency.Written) (idempotency.Answer, bool) {
		if len(w.Accounts) != 1 {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(http.StatusCreated, toAccount(w.Accounts[0]))
	},
	"POST /admin/accounts/{id}/deposits": renderDeposit,
	"POST /sandbox/deposits":             renderDeposit,
	"POST /sandbox/members": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.SandboxMember == nil {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(memberStatus(w.SandboxMember.Created), toSandboxMember(*w.SandboxMember))
	},
	"POST /admin/members": func(w idempotency.Written) (idempotency.Answer, bool) {
		if w.Member == nil {
			return idempotency.Answer{}, false
		}
		return jsonAnswer(memberStatus(!w.MemberExisted), toMember(*w.Member))
	},
}

// renderBatch answers 200 with the batch the request wrote last.
func renderBatch(w idempotency.Written) (idempotency.Answer, bool) {
	if w.Batch == nil {
		return idempotency.Answer{}, false
	}
	return jsonAnswer(http.StatusOK, toBatch(*w.Batch))
}

// renderDeposit answers 201 with a deposit's one transfer.
func renderDeposit(w idempotency.Written) (idempotency.Answer, bool) {
	if len(w.Transfers) != 1 {
		return idempotency.Answer{}, false
	}
	return jsonAnswer(http.StatusCreated, toTransfer(w.Transfers[0]))
}

// renderDecision is an approval's decision's answer, from the approval
// and the batch it wrote.
func renderDecision(w idempotency.Written) (idempotency.Answer, bool) {
	if w.Approval == nil || w.Batch == nil {
		return idempotency.Answer{}, false
	}
	return decisionAnswer(*w.Approval, *w.Batch)
}

// jsonAnswer is writeJSON's answer, with extra headers as name, value pairs.
func jsonAnswer(status int, v any, header ...string) (idempotency.Answer, bool) {
	body, err := json.Marshal(v)
	if err != nil {
		return idempotency.Answer{}, false
	}
	h := map[string]string{"Content-Type": "application/json", "Cache-Control": "no-store"}
	for i := 0; i+1 < len(header); i += 2 {
		h[header[i]] = header[i+1]
	}
	return idempotency.Answer{Status: status, Header: h, Body: body}, true
}

// bufferedAnswer is a ResponseWriter that keeps what a handler's writer
// function writes, for an answer made before it is sent.
type bufferedAnswer struct {
	header http.Header
	code   int
	body   bytes.Buffer
}

func (b *bufferedAnswer) Header() http.Header {
	if b.header == nil {
		b.header = http.Header{}
	}
	return b.header
}

func (b *bufferedAnswer) WriteHeader(code int) {
	if b.code == 0 {
		b.code = code
	}
}

func (b *bufferedAnswer) Write(p []byte) (int, error) {
	if b.code == 0 {
		b.code = http.StatusOK
	}
	return b.body.Write(p)
}

func (b *bufferedAnswer) answer() idempotency.Answer {
	h := map[string]string{}
	for _, k := range keptHeaders {
		if v := b.Header().Get(k); v != "" {
			h[k] = v
		}
	}
	return idempotency.Answer{Status: b.code, Header: h, Body: b.body.Bytes()}
}

// toTransfer is a deposit's answer (the handler's and its renderer's).
func toTransfer(t disburse.Transfer) transferJSON {
	return transferJSON{ID: t.ID, AccountID: t.ToAccountID, Amount: t.Amount, Reference: t.Reference, CreatedAt: dateTime(t.CreatedAt)}
}

// toAPIKey is an API key's answer, its one showing in clear (the
// handler's and its renderer's).
func toAPIKey(k auth.APIKey) apiKeyJSON {
	return apiKeyJSON{ID: k.ID, APIKey: k.Secret}
}

// memberStatus is a registration's status: 201 for a new member, 200 for
// one registered already, unchanged.
func memberStatus(created bool) int {
	if created {
		return http.StatusCreated
	}
	return http.StatusOK
}

// toMember is a registration's answer (the handler's and its renderer's).
func toMember(m disburse.Member) memberJSON {
	return memberJSON{Msisdn: m.Msisdn, Firstname: m.Firstname, Lastname: m.Lastname, AppInstalled: m.AppInstalled, RegisteredAt: dateTime(m.RegisteredAt)}
}
