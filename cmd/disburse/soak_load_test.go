package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/disburse/disburse"
)

// work is one worker of the load: batch after batch, for a random
// organisation each, until stop.
func (r *soakRun) work(w int, stop time.Time) {
	rng := rand.New(rand.NewPCG(r.seed, uint64(w)))
	for n := 0; time.Now().Before(stop); n++ {
		o := r.orgs[rng.IntN(len(r.orgs))]
		r.batch(rng, o, fmt.Sprintf("w%d-%d", w, n))
		if n%8 == 7 {
			r.deposit(o, fmt.Sprintf("topup-w%d-%d", w, n), soakTopUp)
		}
	}
}

// batch runs one batch through: create it, add 100 to 2,000 payments in
// requests of up to 1,000, then cancel it as a DRAFT (one in twenty), or
// submit it and, one in six, cancel it a moment after. Each write has a
// key of its own, kept across its retries.
func (r *soakRun) batch(rng *rand.Rand, o *soakOrg, name string) {
	b := &soakBatch{org: o, name: name}
	a := r.keyed("POST", "/batches", o.token, name+"-create", fmt.Sprintf(`{"name":"soak %s","externalId":%q}`, name, name))
	var created struct{ ID string }
	if a.status != 201 || json.Unmarshal(a.body, &created) != nil {
		r.unexpected("create "+name, a)
		return
	}
	b.id = created.ID
	r.mu.Lock()
	r.batches = append(r.batches, b)
	r.mu.Unlock()

	size := 100 + rng.IntN(1901)
	var strangers []string
	for added := 0; added < size; {
		k := min(size-added, 200+rng.IntN(801))
		body, paid := r.paymentsBody(rng, o, name, added, k)
		strangers = append(strangers, paid...)
		what := fmt.Sprintf("add %s from %d", name, added)
		a := r.keyed("POST", "/batches/"+b.id+"/payments", o.token, fmt.Sprintf("%s-add-%d", name, added), body)
		switch {
		case a.status == 200:
			b.added += k
			b.adds++
		case a.status == 400 && bytes.Contains(a.body, []byte(`"ExternalId"`)) && a.attempts > 1:
			r.duplicate(what+": the retry clashed with its own external ids", a) // it ran again
		default:
			r.unexpected(what, a)
		}
		added += k
	}
	if rng.IntN(20) == 0 {
		r.cancel(b, 0)
		return
	}
	r.submit(b, "submit", strangers)
	if b.submitted && rng.IntN(6) == 0 {
		r.cancel(b, time.Duration(rng.IntN(3000))*time.Millisecond)
	}
}

// submit submits b with the key's suffix given; with too little float it
// tops up and submits again, with another key (the first one's 422 is
// kept for it).
func (r *soakRun) submit(b *soakBatch, suffix string, strangers []string) {
	a := r.keyed("POST", "/batches/"+b.id+"/submit", b.org.token, b.name+"-"+suffix, ``)
	switch {
	case a.status == 200:
		b.submitted = true
		r.mu.Lock()
		r.recent = append(r.recent, strangers...)
		if len(r.recent) > 4000 {
			r.recent = r.recent[len(r.recent)-2000:]
		}
		r.mu.Unlock()
	case a.status == 422 && problemCode(a.body) == "insufficient_float" && suffix == "submit":
		if r.deposit(b.org, b.name+"-short", soakTopUp*40) {
			r.submit(b, "submit-again", strangers)
		}
	case a.status == 409 && problemCode(a.body) == "invalid_state" && a.attempts > 1:
		// Only this worker submits or cancels b: the batch left DRAFT by
		// an earlier attempt of this request, whose key did not replay.
		r.duplicate("submit "+b.name, a)
	default:
		r.unexpected("submit "+b.name, a)
	}
}

// cancel cancels b after wait. A submitted batch may have closed
// meanwhile (409 invalid_state), but not one this request cancelled on
// an earlier attempt: that one's key replays.
func (r *soakRun) cancel(b *soakBatch, wait time.Duration) {
	time.Sleep(wait)
	a := r.keyed("POST", "/batches/"+b.id+"/cancel", b.org.token, b.name+"-cancel", ``)
	switch {
	case a.status == 200:
		b.cancelled = true
	case a.status == 409 && problemCode(a.body) == "invalid_state" && b.submitted:
		if a.attempts > 1 && r.batchStatus(b) == "CANCELLED" {
			r.duplicate("cancel "+b.name, a)
		}
	default:
		r.unexpected("cancel "+b.name, a)
	}
}

// batchStatus reads b's state from a live process ("" if none answers).
func (r *soakRun) batchStatus(b *soakBatch) string {
	for deadline := time.Now().Add(soakRetryFor); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		status, body := r.read("/batches/"+b.id, b.org.token)
		var got struct{ StatusCode string }
		if status == 200 && json.Unmarshal(body, &got) == nil {
			return got.StatusCode
		}
	}
	return ""
}

// paymentsBody is an add-payments request of k payments of batch name,
// from index first: half to members, half to strangers (whom it returns),
// one in five with a referral (ignored by the organisations without
// referrals), external ids in every other request.
func (r *soakRun) paymentsBody(rng *rand.Rand, o *soakOrg, name string, first, k int) (body string, strangers []string) {
	payee := func() (string, bool) {
		if rng.IntN(2) == 0 {
			return memberMsisdn(rng.IntN(soakMembers)), false
		}
		return strangerMsisdn(rng.IntN(200_000)), true
	}
	externalIDs := rng.IntN(2) == 0
	var sb strings.Builder
	sb.WriteString(`{"clearExisting":false,"payments":[`)
	for i := range k {
		if i > 0 {
			sb.WriteByte(',')
		}
		m, stranger := payee()
		if stranger {
			strangers = append(strangers, m)
		}
		fmt.Fprintf(&sb, `{"msisdn":%q,"amount":%s`, m, disburse.Money(100+rng.IntN(9900)))
		if externalIDs {
			fmt.Fprintf(&sb, `,"externalId":"%s-%d"`, name, first+i)
		}
		if rng.IntN(5) == 0 {
			ref, stranger := payee()
			if stranger && o.referrals {
				strangers = append(strangers, ref)
			}
			fmt.Fprintf(&sb, `,"referralMsisdn":%q,"referralAmount":%s`, ref, disburse.Money(100+rng.IntN(900)))
		}
		sb.WriteByte('}')
	}
	sb.WriteString(`]}`)
	return sb.String(), strangers
}

// registrations registers, every 100 to 400 ms until stop, a payee whom
// a recent submit left PENDING, so that registrations meet submits, the
// sweep and cancels. Each msisdn is registered once: a retry that
// answers 200 (already a member) rather than the first run's 201,
// replayed, ran twice.
func (r *soakRun) registrations(stop time.Time) {
	rng := rand.New(rand.NewPCG(r.seed, 1<<32))
	for time.Now().Before(stop) {
		time.Sleep(time.Duration(100+rng.IntN(300)) * time.Millisecond)
		r.mu.Lock()
		var m string
		if n := len(r.recent); n > 0 {
			m = r.recent[n-1-rng.IntN(min(n, 500))]
		}
		fresh := m != "" && !r.members[m]
		if fresh {
			r.members[m] = true
		}
		r.mu.Unlock()
		if !fresh {
			continue
		}
		a := r.keyed("POST", "/admin/members", r.admin, "member-"+m, fmt.Sprintf(`{"msisdn":%q,"appInstalled":%v}`, m, rng.IntN(2) == 0))
		switch {
		case a.status == 201:
		case a.status == 200 && a.attempts > 1:
			r.duplicate("register "+m, a)
		default:
			r.unexpected("register "+m, a)
		}
	}
}
