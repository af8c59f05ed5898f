package bench

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/organisations"
)

// The payees are generated Kenyan mobile numbers, 2547 and eight digits:
// valid for libphonenumber, and as many distinct ones as a run needs.
// Numbers below firstNonMember are the registered members.
const firstNonMember = 1_000_000

func msisdn(n int) string {
	b := [12]byte{'2', '5', '4', '7'}
	for k := 11; k >= 4; k-- {
		b[k] = byte('0' + n%10)
		n /= 10
	}
	return string(b[:])
}

// maxMembers is how many distinct members the payments to members reuse.
const maxMembers = 1000

// org is the organisation the benchmark pays from, with referrals enabled.
type org struct {
	id, accountID, holdingID string
	currency, name           string
	reversal                 time.Duration // the reversal period of the pairs' batches
	token                    string
	members                  []string
	nextNonMember            int // the first msisdn number no batch has used yet
}

// batchSpec says which payments a batch holds; payment i is the same
// whether the service or the floor writes it.
//
// With members: even payments go to the members in turn, odd ones to
// non-members each its own msisdn; a tenth have a referral leg to a member
// (payments 0 and 11 of every 20: half on member payments, half on
// non-member ones). Without (the reversal batch): every payee is a
// non-member, and a tenth have a referral leg to another of them, so both
// legs are held and reversed.
type batchSpec struct {
	n          int
	tag        string // external id prefix, unique per batch
	members    []string
	nonMembers int // the msisdn number of the batch's first non-member
}

// newBatch reserves the non-member msisdns of a batch of n payments.
func (o *org) newBatch(tag string, n int, withMembers bool) batchSpec {
	s := batchSpec{n: n, tag: tag, nonMembers: o.nextNonMember}
	if withMembers {
		s.members = o.members
	}
	o.nextNonMember += s.nonMemberCount()
	return s
}

func (s batchSpec) nonMemberCount() int {
	if s.members == nil {
		return s.n
	}
	return s.n / 2
}

// payee is payment i's msisdn and whether it is a member's.
func (s batchSpec) payee(i int) (string, bool) {
	if s.members == nil {
		return msisdn(s.nonMembers + i), false
	}
	if i%2 == 0 {
		return s.members[(i/2)%len(s.members)], true
	}
	return msisdn(s.nonMembers + i/2), false
}

// nonMember is the batch's k-th non-member msisdn.
func (s batchSpec) nonMember(k int) string { return msisdn(s.nonMembers + k) }

// amount varies between 10.00 and 99.75 so that sums mean something.
func (s batchSpec) amount(i int) disburse.Money {
	return disburse.Money((10+i%90)*100 + (i%4)*25)
}

// referral is payment i's referral leg; a zero amount means none.
func (s batchSpec) referral(i int) (disburse.Money, string, bool) {
	if s.members == nil {
		if i%10 != 0 {
			return 0, "", false
		}
		return 5_00, msisdn(s.nonMembers + (i+1)%s.n), false
	}
	if i%20 != 0 && i%20 != 11 {
		return 0, "", false
	}
	return 5_00, s.members[(i/20)%len(s.members)], true
}

func (s batchSpec) externalID(i int) string { return s.tag + "-" + strconv.Itoa(i) }

// body is the JSON of POST /batches/{id}/payments for payments [from, to).
func (s batchSpec) body(from, to int) []byte {
	b := make([]byte, 0, (to-from)*150+64)
	b = append(b, `{"clearExisting":false,"payments":[`...)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		payee, _ := s.payee(i)
		b = append(b, `{"msisdn":"`...)
		b = append(b, payee...)
		b = append(b, `","amount":`...)
		b = append(b, s.amount(i).String()...)
		b = append(b, `,"firstname":"Amina","lastname":"Otieno","externalId":"`...)
		b = append(b, s.externalID(i)...)
		b = append(b, '"')
		if amount, to, _ := s.referral(i); amount > 0 {
			b = append(b, `,"referralAmount":`...)
			b = append(b, amount.String()...)
			b = append(b, `,"referralMsisdn":"`...)
			b = append(b, to...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

// setup creates the organisation through the operator API with float for
// every batch of the run, an API key and a token, and registers the members.
func setup(ctx context.Context, e *env, float disburse.Money, members int) (*org, error) {
	c := e.client
	var created struct {
		ID       string `json:"id"`
		Name     string `json:"name"`
		Currency string `json:"currency"`
		Accounts []struct {
			ID string `json:"id"`
		} `json:"accounts"`
	}
	err := c.json(ctx, "POST", "/admin/organisations", c.admin, map[string]any{"name": "Bench Payouts Ltd", "referralsEnabled": true}, 201, &created)
	if err != nil {
		return nil, err
	}
	o := &org{id: created.ID, accountID: created.Accounts[0].ID, currency: created.Currency, name: created.Name, nextNonMember: firstNonMember}
	// The holding account is not in the API; the service knows it.
	full, _, err := organisations.Get(ctx, e.svc, o.id)
	if err != nil {
		return nil, err
	}
	o.holdingID, o.reversal = full.HoldingAccountID, full.ReversalPeriod
	deposit := fmt.Appendf(nil, `{"amount":%s,"reference":"bench float"}`, float)
	if _, err := c.call(ctx, "POST", "/admin/accounts/"+o.accountID+"/deposits", c.admin, deposit, 201, nil); err != nil {
		return nil, err
	}
	var key struct {
		APIKey string `json:"apiKey"`
	}
	if err := c.json(ctx, "POST", "/admin/organisations/"+o.id+"/apiKeys", c.admin, nil, 201, &key); err != nil {
		return nil, err
	}
	var token struct {
		AccessToken string `json:"accessToken"`
	}
	if err := c.json(ctx, "POST", "/authentication/getToken", "", map[string]string{"apiKey": key.APIKey}, 200, &token); err != nil {
		return nil, err
	}
	o.token = token.AccessToken
	for i := range e.cfg.Webhooks {
		// The local gateway: what the delivery phase sends reaches it.
		hook := map[string]any{"url": e.gateway.webhookURL(i)}
		if err := c.json(ctx, "POST", "/webhooks", o.token, hook, 201, nil); err != nil {
			return nil, err
		}
	}
	for i := range members {
		o.members = append(o.members, msisdn(i))
	}
	_, err = register(ctx, c, o.members, 64)
	return o, err
}

// createBatch creates an empty DRAFT batch through the API.
func createBatch(ctx context.Context, c *client, o *org, name string) (string, error) {
	var b struct {
		ID string `json:"id"`
	}
	err := c.json(ctx, "POST", "/batches", o.token, map[string]string{"name": name}, 201, &b)
	return b.ID, err
}

// summary is the part of a Batch the bench checks.
type summary struct {
	StatusCode string `json:"statusCode"`
	Summary    struct {
		PaymentsCount  int64 `json:"paymentsCount"`
		SettledCount   int64 `json:"settledCount"`
		PendingCount   int64 `json:"pendingCount"`
		CancelledCount int64 `json:"cancelledCount"`
	} `json:"summary"`
}

// batch reads a batch's status and summary through the API.
func batch(ctx context.Context, c *client, o *org, id string) (summary, error) {
	var s summary
	err := c.json(ctx, "GET", "/batches/"+id, o.token, nil, 200, &s)
	return s, err
}
