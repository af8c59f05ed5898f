package bench

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/disburse/disburse"
)

// The --registration mode measures how fast payees register when the
// database holds what a busy service holds: Orgs organisations have each
// submitted one batch, together Payments payments, half to members
// (settled at submit) and half pending to non-members. Each non-member
// has 1 to 3 pending legs across the organisations: payee p has 1 + p%3,
// its j-th in organisation (p+j) % Orgs. Then, for each count of clients
// in Clients, the next Register non-members register through POST
// /admin/members with that many requests in flight; each registration
// settles that payee's legs in every organisation at once.

// registrationWorld is what the mode set up: the organisations, their
// submitted batches and the pending legs each payee has.
type registrationWorld struct {
	orgs    []*org
	batches []string
	legs    int // pending legs in all
	payees  int // non-members with pending legs
}

// registrationRound is one count of clients' registrations, against the
// floor of the same count of clients (registration_floor.go). Groups is
// the mean size of the groups the service formed; latencies are ms.
type registrationRound struct {
	Clients     int     `json:"clients"`
	Registered  int     `json:"registered"`
	Seconds     float64 `json:"seconds"`
	PerS        float64 `json:"per_s"`
	P50Ms       float64 `json:"p50_ms"`
	P99Ms       float64 `json:"p99_ms"`
	Groups      float64 `json:"mean_group"`
	FloorPerS   float64 `json:"floor_per_s"`
	FloorGroup  int     `json:"floor_group"`
	FloorAtOnce int     `json:"floor_groups_at_once"`
	Ratio       float64 `json:"ratio"`
	FloorPayees int     `json:"floor_registered"`
}

// registrationPayee is the msisdn of the mode's non-member p.
func registrationPayee(p int) string { return msisdn(firstNonMember + p) }

// payeesFrom is the msisdns of the mode's non-members [from, from+n).
func payeesFrom(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = registrationPayee(from + i)
	}
	return out
}

func runRegistration(ctx context.Context, e *env) error {
	cfg := e.cfg
	w, err := buildRegistrationWorld(ctx, e)
	if err != nil {
		return err
	}
	// Each round's service registers perRound payees, and its floor as
	// many again for each grouping.
	perRound := min(cfg.Register, w.payees/(len(cfg.Clients)*(1+maxFloorGroupings)))
	if perRound < 2 {
		return fmt.Errorf("bench: %d payees are too few for %d rounds of registrations and their floors", w.payees, len(cfg.Clients))
	}
	if engineOf(cfg.DatabaseURL) == "postgres" {
		if err := preparePostgresFloor(ctx, cfg.DatabaseURL); err != nil {
			return fmt.Errorf("registration floor: %w", err)
		}
		defer func() {
			if err := dropPostgresFloor(context.WithoutCancel(ctx), cfg.DatabaseURL); err != nil {
				e.say("registration floor: %v", err)
			}
		}()
	}
	var rounds []registrationRound
	next := 0
	for _, clients := range cfg.Clients {
		r, err := registrationRoundOf(ctx, e, w, next, perRound, clients)
		if err != nil {
			return err
		}
		next += r.Registered + r.FloorPayees
		rounds = append(rounds, r)
	}
	if err := w.checkSettled(ctx, e, next); err != nil {
		return err
	}
	ok, problems, err := audit(ctx, e)
	if err != nil {
		return err
	}
	if err := writeRegistration(e, w, rounds, ok); err != nil {
		return err
	}
	return ledgerError(ok, problems)
}

// registrationSlices is how many turns a round's service and its floor
// take, one after the other: both then meet the same load on a machine
// whose load swings from one second to the next.
const registrationSlices = 4

// registrationRoundOf registers n payees from the from-th with clients
// requests in flight, and has the floor register the next ones with each
// grouping those clients allow, as many each, in turns.
func registrationRoundOf(ctx context.Context, e *env, w *registrationWorld, from, n, clients int) (registrationRound, error) {
	e.say("registering %d payees with %d clients, and the floor as many in each grouping, in %d turns", n, clients, registrationSlices)
	groupings := floorGroupings(clients)
	floorFrom := from + n
	var took time.Duration
	floorTook := make([]time.Duration, len(groupings))
	var latencies []time.Duration
	groups, calls := e.svc.RegistrationGroups()
	for i := range registrationSlices {
		a, b := i*n/registrationSlices, (i+1)*n/registrationSlices
		stop, err := e.profile("register")
		if err != nil {
			return registrationRound{}, err
		}
		d, l, err := registerTimed(ctx, e.client, payeesFrom(from+a, b-a), clients)
		stop()
		if err != nil {
			return registrationRound{}, err
		}
		took, latencies = took+d, append(latencies, l...)
		fd, err := registrationFloor(ctx, e, w, payeesFrom(floorFrom+a*len(groupings), (b-a)*len(groupings)), groupings)
		if err != nil {
			return registrationRound{}, err
		}
		for k := range fd {
			floorTook[k] += fd[k]
		}
	}
	groupsAfter, callsAfter := e.svc.RegistrationGroups()
	r := registrationRound{Clients: clients, Registered: n, Seconds: round3(took.Seconds()), PerS: perSecond(n, took),
		P50Ms: ms(percentile(latencies, 50)), P99Ms: ms(percentile(latencies, 99)), FloorPayees: n * len(groupings)}
	if groupsAfter > groups {
		r.Groups = round1(float64(callsAfter-calls) / float64(groupsAfter-groups))
	}
	for k, g := range groupings {
		e.say("floor: %d registrations in groups of %d, %d at once: %v", n, g.size, g.at, floorTook[k].Round(time.Millisecond))
		if rate := perSecond(n, floorTook[k]); rate > r.FloorPerS {
			r.FloorPerS, r.FloorGroup, r.FloorAtOnce = rate, g.size, g.at
		}
	}
	if r.FloorPerS > 0 {
		r.Ratio = float64(int64(r.PerS/r.FloorPerS*100+0.5)) / 100
	}
	e.say("%d clients: %.0f a second in groups of %.1f, p99 %.2f ms; floor %.0f a second (groups of %d, %d at once); ratio %.2f",
		clients, r.PerS, r.Groups, r.P99Ms, r.FloorPerS, r.FloorGroup, r.FloorAtOnce, r.Ratio)
	return r, nil
}

// legsOf is the organisations of payee p's pending legs.
func (w *registrationWorld) legsOf(p int) []int {
	out := make([]int, 1+p%3)
	for j := range out {
		out[j] = (p + j) % len(w.orgs)
	}
	return out
}

// buildRegistrationWorld creates the organisations, registers the members,
// and adds and submits each organisation's batch through the API.
func buildRegistrationWorld(ctx context.Context, e *env) (*registrationWorld, error) {
	cfg := e.cfg
	w := &registrationWorld{payees: cfg.Payments / 4}
	// Each organisation's batch: its non-members' legs, each after a
	// payment to a member.
	legs := make([][]string, cfg.Orgs)
	w.orgs = make([]*org, cfg.Orgs)
	for p := range w.payees {
		for j := range 1 + p%3 {
			k := (p + j) % cfg.Orgs
			legs[k] = append(legs[k], registrationPayee(p))
			w.legs++
		}
	}
	members := min(maxMembers, cfg.Payments/2)
	e.say("%s: %d organisations, %d payments, %d pending legs to %d payees", engineOf(cfg.DatabaseURL), cfg.Orgs, 2*w.legs, w.legs, w.payees)
	for k := range w.orgs {
		float := disburse.Money(len(legs[k])) * 2 * 100_00
		o, err := setup(ctx, e, float, 0)
		if err != nil {
			return nil, err
		}
		w.orgs[k] = o
	}
	memberList := make([]string, members)
	for i := range memberList {
		memberList[i] = msisdn(i)
	}
	if _, err := register(ctx, e.client, memberList, 64); err != nil {
		return nil, err
	}
	for k, o := range w.orgs {
		id, err := createBatch(ctx, e.client, o, "registration "+strconv.Itoa(k))
		if err != nil {
			return nil, err
		}
		payees := make([]string, 0, 2*len(legs[k]))
		for i, payee := range legs[k] {
			payees = append(payees, memberList[i%members], payee)
		}
		for from := 0; from < len(payees); from += cfg.Chunk {
			body := registrationBody(k, payees, from, min(from+cfg.Chunk, len(payees)))
			if _, err := e.client.call(ctx, "POST", "/batches/"+id+"/payments", o.token, body, 200, nil); err != nil {
				return nil, err
			}
		}
		if _, err := e.client.call(ctx, "POST", "/batches/"+id+"/submit", o.token, nil, 200, nil); err != nil {
			return nil, err
		}
		w.batches = append(w.batches, id)
		e.say("organisation %d: %d payments submitted", k+1, len(payees))
	}
	return w, nil
}

// registrationBody is the JSON of POST /batches/{id}/payments for
// payments [from, to) of organisation k's batch.
func registrationBody(k int, payees []string, from, to int) []byte {
	b := make([]byte, 0, (to-from)*100+64)
	b = append(b, `{"clearExisting":false,"payments":[`...)
	for i := from; i < to; i++ {
		if i > from {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"msisdn":"%s","amount":%s,"externalId":"r%d-%d"}`, payees[i], disburse.Money(10_00+i%9000), k, i)
	}
	return append(b, "]}"...)
}

// checkSettled checks, through the API, that each batch has exactly the
// legs of the first registered payees settled besides its members'.
func (w *registrationWorld) checkSettled(ctx context.Context, e *env, registered int) error {
	settledLegs := make([]int64, len(w.orgs))
	for p := range registered {
		for _, k := range w.legsOf(p) {
			settledLegs[k]++
		}
	}
	for k, o := range w.orgs {
		s, err := batch(ctx, e.client, o, w.batches[k])
		if err != nil {
			return err
		}
		legs := s.Summary.PaymentsCount / 2
		if s.Summary.SettledCount != legs+settledLegs[k] || s.Summary.PendingCount != legs-settledLegs[k] {
			return fmt.Errorf("batch %s: %d settled and %d pending of %d, want %d and %d", w.batches[k],
				s.Summary.SettledCount, s.Summary.PendingCount, s.Summary.PaymentsCount, legs+settledLegs[k], legs-settledLegs[k])
		}
	}
	return nil
}

// registrationJSON is the --registration mode's last line. RegisterPerS is
// the slowest round's rate: the one a target must hold for every count of
// clients. RegisterRatio is the lowest of the rounds' ratios to their
// floors, and RegisterFloorPerS that round's floor.
type registrationJSON struct {
	Store             string              `json:"store"`
	Mode              string              `json:"mode"`
	Payments          int                 `json:"payments"`
	PendingLegs       int                 `json:"pending_legs"`
	Orgs              int                 `json:"orgs"`
	Payees            int                 `json:"payees"`
	RegisterPerS      float64             `json:"register_per_s"`
	RegisterFloorPerS float64             `json:"register_floor_per_s"`
	RegisterRatio     float64             `json:"register_ratio"`
	Rounds            []registrationRound `json:"rounds"`
	LedgerOK          bool                `json:"ledger_ok"`
	PeakRSSMB         float64             `json:"peak_rss_mb"`
}

func writeRegistration(e *env, w *registrationWorld, rounds []registrationRound, ok bool) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "Disburse registrations: %s, %d organisations, %d payments, %d pending legs to %d payees\n\n",
		engineOf(e.cfg.DatabaseURL), len(w.orgs), 2*w.legs, w.legs, w.payees)
	t := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(t, "clients\tregistered\ttime\trate\tmean group\tp50\tp99\tfloor\tfloor's grouping\tratio")
	rates := make([]float64, len(rounds))
	lowest := rounds[0]
	for i, r := range rounds {
		fmt.Fprintf(t, "%d\t%d\t%.3f s\t%.0f a second\t%.1f\t%.2f ms\t%.2f ms\t%.0f a second\t%d × %d at once\t%.2f\n",
			r.Clients, r.Registered, r.Seconds, r.PerS, r.Groups, r.P50Ms, r.P99Ms, r.FloorPerS, r.FloorGroup, r.FloorAtOnce, r.Ratio)
		rates[i] = r.PerS
		if r.Ratio < lowest.Ratio {
			lowest = r
		}
	}
	t.Flush()
	fmt.Fprintf(&b, "\nledger: %s\n\n", okText(ok))
	j := registrationJSON{Store: engineOf(e.cfg.DatabaseURL), Mode: "registration", Payments: 2 * w.legs, PendingLegs: w.legs,
		Orgs: len(w.orgs), Payees: w.payees, RegisterPerS: slices.Min(rates), RegisterFloorPerS: lowest.FloorPerS, RegisterRatio: lowest.Ratio,
		Rounds: rounds, LedgerOK: ok, PeakRSSMB: peakRSSMB()}
	if err := writeJSONLine(&b, j); err != nil {
		return err
	}
	_, err := e.cfg.Out.Write(b.Bytes())
	return err
}
