package main

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

// soakRun is one store's soak: its processes, its organisations, and the
// record of every answer the load got, which the checks compare with
// what the service holds at the end.
type soakRun struct {
	t      *testing.T
	seed   uint64
	admin  string
	db     *sql.DB // the service's database, for the outbox's figures and the terminations
	hooks  *hookReceiver
	fleet  *fleet
	stalls *stallWatch
	orgs   []*soakOrg

	requests soakRequests

	mu         sync.Mutex
	batches    []*soakBatch
	members    map[string]bool // every msisdn a registration was sent for
	recent     []string        // non-members paid PENDING by recent submits, for the registrar
	internals  []string        // the first 500 answers
	duplicates []string        // keyed requests seen to have run twice

	// What the checks found.
	payments                int            // in the batches the load made
	paid                    disburse.Money // to wallets
	deliveries, redelivered int            // webhook deliveries in the outbox; copies received beyond the first
	unexplained             int            // of those, copies with no fault between them and the one before
	// repeats are the other copies, by the index of the fault before them:
	// how long after its start each arrived.
	repeats   map[int][]time.Duration
	deadlocks int // PostgreSQL's count for the database
}

// soakOrg is an organisation of the soak and the money the load put in.
type soakOrg struct {
	id, account, token string
	referrals          bool

	mu        sync.Mutex
	deposited disburse.Money // deposits that answered 201
	deposits  int
}

// soakBatch is what the load was told about one batch.
type soakBatch struct {
	org       *soakOrg
	id, name  string // name is also its externalId
	added     int    // payments of the adds that answered 200
	adds      int
	submitted bool // a submit answered 200
	cancelled bool // a cancel answered 200
}

const (
	soakOrgs    = 4
	soakMembers = 300 // payees registered before the load
	// soakFloat is each organisation's first deposit; the load tops up
	// with soakTopUp now and then, and whenever a submit finds too little.
	soakFloat = disburse.Money(20_000_000_00)
	soakTopUp = disburse.Money(250_000_00)
)

// memberMsisdn is the i-th payee registered before the load.
func memberMsisdn(i int) string { return fmt.Sprintf("2547%08d", 10_000_000+i) }

// strangerMsisdn is the i-th payee who is not a member when the load
// starts (the registrar registers some of them while it runs).
func strangerMsisdn(i int) string { return fmt.Sprintf("2547%08d", 20_000_000+i) }

// setUp makes the organisations (referrals on every other one; reversal
// periods of 2 to 8 seconds), their float, API keys and webhook
// endpoints, and registers the first members. No fault strikes yet, but
// every write already carries its key.
func (r *soakRun) setUp() {
	t := r.t
	c := client{t: t, admin: r.admin}
	r.members = map[string]bool{}
	for i := range soakOrgs {
		o := &soakOrg{referrals: i%2 == 0}
		var org struct {
			ID       string
			Accounts []struct{ ID string }
		}
		r.want(r.keyed("POST", "/admin/organisations", r.admin, fmt.Sprintf("org-%d", i),
			fmt.Sprintf(`{"name":"Soak %d Ltd","referralsEnabled":%v}`, i, o.referrals)), 201, &org)
		o.id, o.account = org.ID, org.Accounts[0].ID
		c.call(r.fleet.any(), "PUT", "/admin/organisations/"+o.id+"/settings", r.admin,
			fmt.Sprintf(`{"reversalPeriodSeconds":%d}`, 2+2*i), 200)
		var key struct{ APIKey string }
		r.want(r.keyed("POST", "/admin/organisations/"+o.id+"/apiKeys", r.admin, fmt.Sprintf("apikey-%d", i), ``), 201, &key)
		o.token = c.call(r.fleet.any(), "POST", "/authentication/getToken", "", `{"apiKey":"`+key.APIKey+`"}`, 200)["accessToken"].(string)
		r.deposit(o, fmt.Sprintf("float-%d", i), soakFloat)
		var hook struct{ ID, Secret string }
		r.want(r.keyed("POST", "/webhooks", o.token, fmt.Sprintf("hook-%d", i), `{"url":"`+r.hooks.url(i)+`"}`), 201, &hook)
		r.hooks.trust(i, hook.Secret)
		r.orgs = append(r.orgs, o)
	}
	for i := range soakMembers {
		m := memberMsisdn(i)
		r.members[m] = true
		r.want(r.keyed("POST", "/admin/members", r.admin, "member-"+m,
			fmt.Sprintf(`{"msisdn":%q,"appInstalled":%v}`, m, i%3 == 0)), 201, nil)
	}
}

// want requires a setup answer's status and decodes its body into out.
func (r *soakRun) want(a soakAnswer, status int, out any) {
	r.t.Helper()
	if a.status != status {
		r.t.Fatalf("status %d after %d attempts, want %d: %.300s", a.status, a.attempts, status, a.body)
	}
	if out != nil {
		if err := json.Unmarshal(a.body, out); err != nil {
			r.t.Fatalf("%v: %.300s", err, a.body)
		}
	}
}

// deposit puts amount on o's float with the Idempotency-Key key, and
// records it once it answered 201.
func (r *soakRun) deposit(o *soakOrg, key string, amount disburse.Money) bool {
	a := r.keyed("POST", "/admin/accounts/"+o.account+"/deposits", r.admin, key,
		fmt.Sprintf(`{"amount":%s,"reference":%q}`, amount, key))
	if a.status != 201 {
		r.unexpected("deposit "+key, a)
		return false
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.deposited += amount
	o.deposits++
	return true
}

// unexpected fails the soak with an answer the load cannot explain.
func (r *soakRun) unexpected(what string, a soakAnswer) {
	r.t.Errorf("%s: status %d after %d attempts (replayed %v): %.300s", what, a.status, a.attempts, a.replayed, a.body)
}

// duplicate fails the soak with a keyed request that ran twice.
func (r *soakRun) duplicate(what string, a soakAnswer) {
	r.mu.Lock()
	r.duplicates = append(r.duplicates, what)
	r.mu.Unlock()
	r.t.Errorf("ran twice: %s: status %d after %d attempts (replayed %v): %.300s", what, a.status, a.attempts, a.replayed, a.body)
}
