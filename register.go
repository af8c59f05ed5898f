package disburse

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
)

// RegisterMember makes msisdn a member and, in the same transaction, settles
// every leg pending to it in every organisation: holding → wallet. A batch
// left with nothing pending closes (docs/api.md section 6). Registering an
// existing member changes nothing and returns it with created false.
func (s *Service) RegisterMember(ctx context.Context, in Member) (Member, bool, error) {
	return s.RegisterMemberBy(ctx, ActorOf(ctx), in)
}

// RegisterMemberBy is RegisterMember with the actor the audit log names.
//
// Registrations that arrive together are written together, up to
// maxRegistrationGroup in one transaction (internal/groupcommit): every
// registration of an organisation's payees writes its holding account and
// its batches' summaries, rows that would otherwise make them queue one
// behind the other. Each caller still gets its own answer, after the
// commit, exactly as if it had run alone.
func (s *Service) RegisterMemberBy(ctx context.Context, actor Actor, in Member) (Member, bool, error) {
	var v Validation
	if !validMsisdn(in.Msisdn) {
		v.Add(-1, "Msisdn", in.Msisdn, MsisdnMessage)
	}
	if v.Text(-1, "Firstname", in.Firstname) && len([]rune(in.Firstname)) > 100 {
		v.Add(-1, "Firstname", in.Firstname, "firstname is at most 100 characters")
	}
	if v.Text(-1, "Lastname", in.Lastname) && len([]rune(in.Lastname)) > 100 {
		v.Add(-1, "Lastname", in.Lastname, "lastname is at most 100 characters")
	}
	if err := v.Err(); err != nil {
		return Member{}, false, err
	}
	r := registration{actor: actor, member: in}
	var out registered
	var err error
	if s.registrations != nil {
		out, err = s.registrations.Do(ctx, r)
	} else {
		var outs []registered
		if outs, err = s.register(ctx, []registration{r}); err == nil {
			out = outs[0]
		}
	}
	return out.member, out.created, err
}

// RegistrationGroups is how many groups the registrations that shared a
// transaction formed so far, and how many registrations they held: what
// grouping did under a given load (docs/benchmarks.md, "Registration").
func (s *Service) RegistrationGroups() (groups, registrations int64) {
	if s.registrations == nil {
		return 0, 0
	}
	st := s.registrations.Stats()
	return st.Groups, st.Calls
}

// maxRegistrationGroup bounds a group: its transaction locks every
// pending leg of its payees.
const maxRegistrationGroup = 128

// registrationGroups is how many groups of registrations one process runs
// at once: one, holding every caller that waits (internal/groupcommit).
// Since a group waits for its callers to come back, one group of all of
// them ran faster than two of half each, as it does for the floor
// (docs/benchmarks.md, "Registration").
const registrationGroups = 1

// registration is one request to register a member, by actor.
type registration struct {
	actor  Actor
	member Member
}

// registered is a registration's answer: the member, and whether this
// registration made it one.
type registered struct {
	member  Member
	created bool
}

// register registers a group in one transaction. Of two registrations of
// one msisdn, the first makes the member and the second finds it, as
// they would one after the other.
func (s *Service) register(ctx context.Context, group []registration) ([]registered, error) {
	var out []registered
	var moved moves
	err := s.Store.Write(ctx, func(tx Tx) error {
		now := s.Now()
		moved = nil
		ms, found, err := insertMembers(ctx, tx, group, now)
		if err != nil {
			return err
		}
		out = ms.out
		if len(ms.created) == 0 {
			return nil
		}
		legs, err := liveOf(pendingToAny(found.Legs, ms.created), found.Organisations)
		if err != nil {
			return err
		}
		orgs := found.Organisations
		m := writeBuffer{now: now}
		defer func() { moved = m.moved }()
		// The audit and the settlement's writes go together: a group's
		// round trips were most of its cost (docs/benchmarks.md, "Registration").
		return tx.Together(ctx, func() error {
			if err := tx.InsertAudit(ctx, s.registrationAudit(group, ms, pendingLegsTo(legs))...); err != nil {
				return err
			}
			return s.settleToMembers(ctx, tx, &m, legs, orgs, ms.created)
		})
	})
	if err == nil {
		s.Report(moved)
	}
	return out, err
}

// groupMembers is what a group's registrations made: the answer of each,
// the members it created by msisdn, and the first registration of each
// msisdn, the one that created it.
type groupMembers struct {
	out     []registered
	created map[string]Member
	first   map[string]int
}

// insertMembers inserts the group's members, each msisdn once, locks the
// legs pending to them (and to those that were members already, which the
// caller leaves be), and reads those that were members already.
func insertMembers(ctx context.Context, tx Tx, group []registration, now time.Time) (groupMembers, NewMembers, error) {
	ms := groupMembers{out: make([]registered, len(group)), first: make(map[string]int, len(group))}
	var fresh []Member
	for i, r := range group {
		if _, seen := ms.first[r.member.Msisdn]; !seen {
			ms.first[r.member.Msisdn] = i
			m := r.member
			m.RegisteredAt = now
			fresh = append(fresh, m)
		}
	}
	found, err := tx.InsertMembersLockingLegs(ctx, fresh)
	if err != nil {
		return ms, found, err
	}
	ms.created = make(map[string]Member, len(found.Inserted))
	var existing []string
	for _, m := range fresh {
		if found.Inserted[m.Msisdn] {
			ms.created[m.Msisdn] = m
		} else {
			existing = append(existing, m.Msisdn)
		}
	}
	members := map[string]Member{}
	if len(existing) > 0 {
		if members, err = tx.Members(ctx, existing); err != nil {
			return ms, found, err
		}
	}
	for i, r := range group {
		msisdn := r.member.Msisdn
		if m, ok := ms.created[msisdn]; ok {
			ms.out[i] = registered{member: m, created: ms.first[msisdn] == i}
		} else if m, ok := members[msisdn]; ok {
			ms.out[i] = registered{member: m}
		} else {
			return ms, found, fmt.Errorf("register %s: neither inserted nor found: %w", msisdn, ErrNotFound)
		}
	}
	return ms, found, nil
}

// pendingToAny keeps, of legs, the payments with a leg pending to one of
// members.
func pendingToAny(legs []Payment, members map[string]Member) []Payment {
	return slices.DeleteFunc(legs, func(p Payment) bool {
		_, payee := members[p.Msisdn]
		_, referee := members[p.ReferralMsisdn]
		return !(payee && p.Status == PaymentPending) && !(referee && p.HasReferral() && p.ReferralStatus == PaymentPending)
	})
}

// pendingLegsTo counts, by msisdn, the payments of legs with a leg pending
// to it (a payment whose two legs go to one payee counts once).
func pendingLegsTo(legs []Payment) map[string]int {
	counts := make(map[string]int)
	for _, p := range legs {
		toPayee := p.Status == PaymentPending
		if toPayee {
			counts[p.Msisdn]++
		}
		if p.HasReferral() && p.ReferralStatus == PaymentPending && !(toPayee && p.ReferralMsisdn == p.Msisdn) {
			counts[p.ReferralMsisdn]++
		}
	}
	return counts
}

// registrationAudit is an entry for each member the group created, in the
// order the registrations came.
func (s *Service) registrationAudit(group []registration, ms groupMembers, settled map[string]int) []AuditEntry {
	entries := make([]AuditEntry, 0, len(ms.created))
	for i, r := range group {
		msisdn := r.member.Msisdn
		if m, ok := ms.created[msisdn]; ok && ms.first[msisdn] == i {
			entries = append(entries, NewAuditEntry(s.Now(), r.actor, "member.registered", "", msisdn, map[string]any{
				"firstname": m.Firstname, "lastname": m.Lastname, "appInstalled": m.AppInstalled, "pendingLegsSettled": settled[msisdn]}))
		}
	}
	return entries
}

// settleLegs moves each of p's legs pending to one of members from the
// holding account to that member's wallet (in wallets, by msisdn).
func settleLegs(m *writeBuffer, org Organisation, p *Payment, members map[string]Member, wallets map[string]string) {
	for _, l := range legsOf(p) {
		member, ok := members[l.msisdn]
		if !ok || *l.status != PaymentPending {
			continue
		}
		m.transfer(org, org.HoldingAccountID, wallets[l.msisdn], l.amount, TransferSettle, *p, l.which)
		*l.status, *l.settledAt = PaymentSettled, m.now
		if member.AppInstalled {
			m.notify(org, ChannelPush, member.Msisdn, pushMessage(org, l.amount))
		}
	}
}

// resolve applies change to each payment (its rows locked by the caller),
// writes it all with the legs' events, and then, last, adds the payments'
// changes to their batches' summaries in one statement (which locks the
// batches in id order, so two resolvers never wait on each other) and
// closes each batch that is OPEN with nothing left pending.
//
// The batch row and the holding account's balance are what every
// registration of a batch's payees writes, so each is locked from its
// write to the commit: writing them last, in two statements (the balances,
// then the summaries), keeps the lock to those and the commit, and
// concurrent registrations queue for less (docs/benchmarks.md, "Issue 16:
// registration"). It is also the one lock order of every
// money use case (docs/ledger.md, "Lock order"): payments, accounts, then
// the batch, so a cancel, a sweep and a registration never wait on each
// other in a circle, and none resolves a leg another has already locked.
func (s *Service) resolve(ctx context.Context, tx Tx, m *writeBuffer, payments []Payment, orgs map[string]Organisation,
	change func(org Organisation, p *Payment, wallets map[string]string),
	walletsFor func(org Organisation) []string) error {
	return tx.Together(ctx, func() error { return s.resolveTogether(ctx, tx, m, payments, orgs, change, walletsFor) })
}

// resolveTogether is resolve inside Tx.Together: its writes, held, go with
// the wallets' insert and the summaries' update, the two statements whose
// rows it reads.
func (s *Service) resolveTogether(ctx context.Context, tx Tx, m *writeBuffer, payments []Payment, orgs map[string]Organisation,
	change func(org Organisation, p *Payment, wallets map[string]string),
	walletsFor func(org Organisation) []string) error {
	ids, byBatch := byBatchID(payments)
	wallets, err := ensureWallets(ctx, tx, orgs, walletsFor, m.now)
	if err != nil {
		return err
	}
	changes := make([]Summary, len(ids))
	var events []WebhookEvent
	for k, id := range ids {
		var sum Summary
		for _, i := range byBatch[id] {
			old := payments[i]
			org := orgs[old.OrganisationID]
			change(org, &payments[i], wallets[walletKey(org)])
			m.record(&sum, old, payments[i])
			events = append(events, legEvents(org.ID, old, payments[i], m.now)...)
		}
		changes[k] = sum
	}
	if err := insertEvents(ctx, tx, events...); err != nil {
		return err
	}
	if err := m.flush(ctx, tx); err != nil {
		return err
	}
	summed, err := tx.AddToSummaries(ctx, ids, changes)
	if err != nil {
		return err
	}
	return closeResolved(ctx, tx, summed, m.now)
}

// byBatchID returns the batches of payments in id order, and the indexes
// of each batch's payments.
func byBatchID(payments []Payment) ([]string, map[string][]int) {
	byBatch := make(map[string][]int)
	var ids []string
	for i, p := range payments {
		if _, ok := byBatch[p.BatchID]; !ok {
			ids = append(ids, p.BatchID)
		}
		byBatch[p.BatchID] = append(byBatch[p.BatchID], i)
	}
	slices.SortFunc(ids, strings.Compare)
	return ids, byBatch
}

// organisationsOf reads the organisations of payments, by id; a missing
// one is ErrNotFound.
func organisationsOf(ctx context.Context, tx Tx, payments []Payment) (map[string]Organisation, error) {
	orgIDs := newDistinct(len(payments))
	for _, p := range payments {
		orgIDs.add(p.OrganisationID)
	}
	orgs, err := tx.OrganisationsByID(ctx, orgIDs.list)
	if err != nil {
		return nil, err
	}
	for _, id := range orgIDs.list {
		if _, ok := orgs[id]; !ok {
			return nil, fmt.Errorf("resolve: organisation %s: %w", id, ErrNotFound)
		}
	}
	return orgs, nil
}

// ensureWallets returns, by walletKey and msisdn, the wallet of each payee
// walletsFor names. A live wallet is a member's in one currency, whichever
// organisation pays it: each currency's wallets are ensured in one
// statement, sorted, however many organisations and batches pay into them.
// A sandbox's wallets are its own (walletsIn).
func ensureWallets(ctx context.Context, tx Tx, orgs map[string]Organisation,
	walletsFor func(org Organisation) []string, now time.Time) (map[string]map[string]string, error) {
	need := make(map[string][]string)      // walletKey → msisdns
	payer := make(map[string]Organisation) // walletKey → an organisation that pays into them
	for _, id := range slices.Sorted(maps.Keys(orgs)) {
		org := orgs[id]
		key := walletKey(org)
		need[key] = append(need[key], walletsFor(org)...)
		payer[key] = org
	}
	wallets := make(map[string]map[string]string, len(need)) // walletKey → msisdn → account id
	for _, key := range slices.Sorted(maps.Keys(need)) {
		msisdns := slices.Compact(slices.Sorted(slices.Values(need[key])))
		if len(msisdns) == 0 {
			continue
		}
		var err error
		if wallets[key], err = walletsIn(ctx, tx, payer[key], msisdns, now); err != nil {
			return nil, err
		}
	}
	return wallets, nil
}

// closeResolved closes each batch that is OPEN with nothing left pending.
func closeResolved(ctx context.Context, tx Tx, summed []Batch, now time.Time) error {
	var closed []WebhookEvent
	for _, b := range summed {
		if b.Status == BatchOpen && b.Summary.nothingPending() {
			b.Status, b.ClosedAt = BatchClosed, now
			if err := tx.UpdateBatch(ctx, b); err != nil {
				return err
			}
			closed = append(closed, batchEvent(EventBatchClosed, b, now))
		}
	}
	return insertEvents(ctx, tx, closed...)
}
