package sqlstore

import (
	"math/rand/v2"

	"github.com/disburse/disburse"
)

// submitSQL writes SubmitPayments' statements for one plan. Each is plain
// SQL over the batch's rows; what the engines spell differently (an id
// made in SQL, an amount's text, a payment's legs as rows) is the
// Dialect's. Every plan is a scan of the batch by payments_batch and
// lookups by unique keys, whatever the tables' statistics: a freshly
// loaded batch has none (docs/benchmarks.md, "The machine").
type submitSQL struct {
	e Engine
	p disburse.SubmitPlan
	// transferPrefix begins every transfer id (disburse.IDPrefix).
	transferPrefix string
}

// submitStates are a payment's states after submit by k: 3 when its
// payee is a member, plus 0 without a referral leg, 1 with one to a
// member, 2 with one to a non-member. The UPDATE joins each payment to
// its row, so that membership is looked up once a leg, not once a
// column (the join is hashed on k: the six rows are the inner side).
const submitStates = `SELECT 0 AS k, 'PENDING' AS status, 0 AS settled, '' AS referral_status, 0 AS referral_settled, 1 AS held
	UNION ALL SELECT 1, 'PENDING', 0, 'SETTLED', 1, 1
	UNION ALL SELECT 2, 'PENDING', 0, 'PENDING', 0, 1
	UNION ALL SELECT 3, 'SETTLED', 1, '', 0, 0
	UNION ALL SELECT 4, 'SETTLED', 1, 'SETTLED', 1, 0
	UNION ALL SELECT 5, 'SETTLED', 1, 'PENDING', 0, 1`

// isMember is the condition that msisdn (a column of payments) is a
// member the plan's organisation pays as one: a live member, or for a
// sandbox one of its own (docs/sandbox.md).
func (q submitSQL) isMember(msisdn string) string {
	if q.p.Sandbox {
		return `EXISTS (SELECT 1 FROM sandbox_members m WHERE m.organisation_id = payments.organisation_id AND m.msisdn = payments.` + msisdn + `)`
	}
	return `EXISTS (SELECT 1 FROM members m WHERE m.msisdn = payments.` + msisdn + `)`
}

func (q submitSQL) updateStates() string {
	return `WITH s AS MATERIALIZED (` + submitStates + `)
	UPDATE payments SET status = s.status, is_member = (s.k >= 3), submitted_at = CAST(? AS BIGINT),
		settled_at = CASE WHEN s.settled = 1 THEN CAST(? AS BIGINT) ELSE payments.settled_at END,
		referral_status = CASE WHEN s.referral_status = '' THEN payments.referral_status ELSE s.referral_status END,
		referral_settled_at = CASE WHEN s.referral_settled = 1 THEN CAST(? AS BIGINT) ELSE payments.referral_settled_at END,
		reversal_due_at = CASE WHEN s.held = 1 THEN CAST(? AS BIGINT) ELSE payments.reversal_due_at END
	FROM s WHERE payments.batch_id = ? AND payments.status = 'DRAFT' AND s.k =
		CASE WHEN ` + q.isMember("msisdn") + ` THEN 3 ELSE 0 END +
		CASE WHEN payments.referral_amount = 0 THEN 0 WHEN ` + q.isMember("referral_msisdn") + ` THEN 1 ELSE 2 END`
}

func (q submitSQL) updateArgs() []any {
	now := q.p.Now.UnixMicro()
	return []any{now, now, now, q.p.Due.UnixMicro(), q.p.BatchID}
}

// legs is the batch's legs after the UPDATE, in the payments' order: a
// row per payment leg (n 0) and referral leg (n 1), with its payee,
// amount and whether it was SETTLED (to a member) or is PENDING. Its one
// placeholder, the batch, comes last in any statement that reads it.
func (q submitSQL) legs() string {
	return `(SELECT p.id AS payment_id, p.seq AS seq, l.n AS n, p.organisation_id AS organisation_id,
		CASE l.n WHEN 0 THEN p.msisdn ELSE p.referral_msisdn END AS msisdn,
		CASE l.n WHEN 0 THEN p.amount ELSE p.referral_amount END AS amount,
		(CASE l.n WHEN 0 THEN p.status ELSE p.referral_status END) = 'SETTLED' AS settled
		FROM payments p ` + q.e.EachLeg() + `
		WHERE p.batch_id = ? AND p.status IN ('SETTLED', 'PENDING') AND (l.n = 0 OR p.referral_amount > 0))`
}

// wallet is the condition that w is the wallet the plan pays msisdn (a
// column) into, a unique key's lookup; live wallets are in the plan's
// currency (one placeholder).
func (q submitSQL) wallet(msisdn string) string {
	if q.p.Sandbox {
		return `w.kind = 'SANDBOX_WALLET' AND w.sandbox_organisation_id = ` + q.organisationOf(msisdn) + ` AND w.msisdn = ` + msisdn
	}
	return `w.kind = 'WALLET' AND w.msisdn = ` + msisdn + ` AND w.currency = CAST(? AS TEXT)`
}

// organisationOf names the organisation column beside msisdn's.
func (q submitSQL) organisationOf(msisdn string) string {
	return msisdn[:len(msisdn)-len("msisdn")] + "organisation_id"
}

func (q submitSQL) walletArgs() []any {
	now := q.p.Now.UnixMicro()
	return []any{disburse.IDPrefix(), walletBase(), q.p.Currency, now, q.p.BatchID}
}

// insertWallets creates the wallets of the members paid that have none,
// as EnsureWallets does (accounts.go): ON CONFLICT looks each member's
// up in the unique index (a NOT EXISTS was planned, without statistics,
// as a scan of every wallet for each member). Ids are numbered from a
// random base:
// two submits that make wallets in one millisecond with the same prefix
// would otherwise make the same ids.
func (q submitSQL) insertWallets() string {
	kind, scopeCol, scopeVal, conflict := "'WALLET'", "", "", `(msisdn, currency) WHERE kind = 'WALLET'`
	if q.p.Sandbox {
		kind, scopeCol, scopeVal = "'SANDBOX_WALLET'", ", sandbox_organisation_id", ", x.organisation_id"
		conflict = `(sandbox_organisation_id, msisdn) WHERE kind = 'SANDBOX_WALLET'`
	}
	return `INSERT INTO accounts (id, kind, name, currency, balance, is_default, msisdn, created_at` + scopeCol + `)
	SELECT ` + q.e.IDFrom("?", "? + ROW_NUMBER() OVER ()") + `, ` + kind + `, x.msisdn, CAST(? AS TEXT), 0, FALSE, x.msisdn, CAST(? AS BIGINT)` + scopeVal + `
	FROM (SELECT g.msisdn AS msisdn, g.organisation_id AS organisation_id FROM ` + q.legs() + ` AS g
		WHERE g.settled GROUP BY g.msisdn, g.organisation_id) AS x
	WHERE true ON CONFLICT ` + conflict + ` DO NOTHING`
}

// insertTransfers writes a transfer a leg: PAY into the member's
// wallet, or HOLD into the holding account.
func (q submitSQL) insertTransfers() string {
	return `INSERT INTO transfers (id, from_account_id, to_account_id, amount, kind, payment_id, leg, reference, created_at)
	SELECT ` + q.e.IDFrom("?", "g.seq * 2 + g.n") + `, ` + q.e.UUIDParam() + `,
		CASE WHEN g.settled THEN (SELECT w.id FROM accounts w WHERE ` + q.wallet("g.msisdn") + `) ELSE ` + q.e.UUIDParam() + ` END,
		g.amount, CASE WHEN g.settled THEN 'PAY' ELSE 'HOLD' END, g.payment_id,
		CASE g.n WHEN 0 THEN 'PAYMENT' ELSE 'REFERRAL' END, '', CAST(? AS BIGINT)
	FROM ` + q.legs() + ` AS g`
}

func (q *submitSQL) transferArgs() []any {
	q.transferPrefix = disburse.IDPrefix()
	args := []any{q.transferPrefix, q.p.PayoutAccountID}
	if !q.p.Sandbox {
		args = append(args, q.p.Currency)
	}
	return append(args, q.p.HoldingAccountID, q.p.Now.UnixMicro(), q.p.BatchID)
}

// insertNotifications writes an SMS a held leg and a push a leg settled
// to a member with the app, in the legs' order.
func (q submitSQL) insertNotifications() string {
	amount := q.e.MoneyText("g.amount")
	return `INSERT INTO notifications (id, channel, recipient, message, status, attempts, next_attempt_at, lease_owner, last_error, created_at)
	SELECT ` + q.e.IDFrom("?", "g.seq * 2 + g.n") + `, CASE WHEN g.settled THEN 'PUSH' ELSE 'SMS' END, g.msisdn,
		CASE WHEN g.settled THEN CAST(? AS TEXT) || ` + amount + ` || CAST(? AS TEXT)
			ELSE CAST(? AS TEXT) || ` + amount + ` || CAST(? AS TEXT) END,
		'PENDING', 0, CAST(? AS BIGINT), '', '', CAST(? AS BIGINT)
	FROM ` + q.legs() + ` AS g
	WHERE NOT g.settled OR EXISTS (SELECT 1 FROM members m WHERE m.msisdn = g.msisdn AND m.app_installed)`
}

func (q submitSQL) notificationArgs() []any {
	now := q.p.Now.UnixMicro()
	return []any{disburse.IDPrefix(), q.p.PushHead, q.p.PushTail, q.p.SMSHead, q.p.SMSTail, now, now, q.p.BatchID}
}

// walletBase is a random first counter for a statement's wallet ids,
// leaving 2^24 wallets below the counter's 48 bits.
func walletBase() int64 { return rand.Int64N(1<<47 - 1<<24) }
