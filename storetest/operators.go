package storetest

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/operators"
)

// OperatorStore is a store that is both the domain's and the operators',
// as sqlstore's is.
type OperatorStore interface {
	disburse.Store
	operators.Store
}

// RunOperators runs the suite of operators.Tx, each test in parallel on a
// store of its own. open returns a new, empty, migrated store and arranges
// its closing with t.Cleanup.
func RunOperators(t *testing.T, open func(t *testing.T) OperatorStore) {
	tests := []struct {
		name string
		run  func(*testing.T, OperatorStore)
	}{
		{"AuditEntries", testAuditEntries},
		{"OperatorTokens", testOperatorTokens},
		{"OrganisationsPage", testOrganisationsPage},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

func writeOperators(t *testing.T, s operators.Store, fn func(operators.Tx) error) {
	t.Helper()
	writeIn(t, s.WriteOperators, fn)
}

func getOperators[T any](t *testing.T, s operators.Store, fn func(operators.Tx) (T, error)) T {
	t.Helper()
	return getIn(t, s.ReadOperators, fn)
}

func testAuditEntries(t *testing.T, s OperatorStore) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	op := disburse.Actor{Type: disburse.ActorPortalUser, ID: disburse.NewID(), Name: "op@example.org"}
	var entries []disburse.AuditEntry
	for i := range 5 {
		org := w.org.ID
		if i == 2 {
			org = other.org.ID
		}
		entries = append(entries, disburse.AuditEntry{ID: disburse.NewID(), At: at(time.Duration(i) * time.Minute), Actor: op,
			Action: "settings.changed", OrganisationID: org, Subject: org, Details: `{"before":{"a":1},"after":{"a":2}}`})
	}
	member := disburse.AuditEntry{ID: disburse.NewID(), At: at(time.Hour), Actor: operators.Bootstrap, Action: "member.registered",
		Subject: msisdnKE, Details: `{}`}
	write(t, s, func(tx disburse.Tx) error {
		err := tx.InsertAudit(ctx, member)
		for _, e := range entries {
			err = errors.Join(err, tx.InsertAudit(ctx, e))
		}
		return err
	})
	audit := func(f operators.AuditFilter) []disburse.AuditEntry {
		return getOperators(t, s, func(tx operators.Tx) ([]disburse.AuditEntry, error) { return tx.AuditEntries(ctx, f) })
	}
	same(t, "newest first", []disburse.AuditEntry{member, entries[4], entries[3]}, audit(operators.AuditFilter{Limit: 3}))
	same(t, "the next page", []disburse.AuditEntry{entries[2], entries[1], entries[0]}, audit(operators.AuditFilter{After: entries[3].ID, Limit: 3}))
	same(t, "one organisation's", []disburse.AuditEntry{entries[4], entries[3], entries[1], entries[0]},
		audit(operators.AuditFilter{OrganisationID: w.org.ID, Limit: 10}))
	same(t, "one organisation's next page", []disburse.AuditEntry{entries[1], entries[0]},
		audit(operators.AuditFilter{OrganisationID: w.org.ID, After: entries[3].ID, Limit: 10}))
	same(t, "one action's", []disburse.AuditEntry{member}, audit(operators.AuditFilter{Action: "member.registered", Limit: 10}))
	same(t, "one organisation's of one action", []disburse.AuditEntry{entries[2]},
		audit(operators.AuditFilter{OrganisationID: other.org.ID, Action: "settings.changed", Limit: 10}))
	err := s.ReadOperators(ctx, func(tx operators.Tx) error {
		_, err := tx.AuditEntries(ctx, operators.AuditFilter{After: disburse.NewID(), Limit: 10})
		return err
	})
	if !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("a cursor naming no entry: %v, want ErrNotFound", err)
	}
	err = s.ReadOperators(ctx, func(tx operators.Tx) error {
		_, err := tx.AuditEntries(ctx, operators.AuditFilter{OrganisationID: w.org.ID, After: entries[2].ID, Limit: 10})
		return err
	})
	if !errors.Is(err, disburse.ErrNotFound) {
		t.Errorf("another organisation's entry as the cursor: %v, want ErrNotFound", err)
	}
}

func testOperatorTokens(t *testing.T, s OperatorStore) {
	ctx := t.Context()
	alice := operators.Token{ID: disburse.NewID(), Name: "alice", Hash: "h-alice", CreatedAt: t0}
	bob := operators.Token{ID: disburse.NewID(), Name: "bob", Hash: "h-bob", CreatedAt: at(time.Minute)}
	writeOperators(t, s, func(tx operators.Tx) error {
		return errors.Join(tx.InsertOperatorToken(ctx, bob), tx.InsertOperatorToken(ctx, alice))
	})
	err := s.WriteOperators(ctx, func(tx operators.Tx) error {
		return tx.InsertOperatorToken(ctx, operators.Token{ID: disburse.NewID(), Name: "alice", Hash: "h-other", CreatedAt: t0})
	})
	if !errors.Is(err, disburse.ErrDuplicate) {
		t.Errorf("a second live token named alice: %v, want ErrDuplicate", err)
	}
	same(t, "by name", []operators.Token{alice, bob}, getOperators(t, s, func(tx operators.Tx) ([]operators.Token, error) { return tx.OperatorTokens(ctx) }))
	same(t, "by hash", bob, getOperators(t, s, func(tx operators.Tx) (operators.Token, error) { return tx.LiveOperatorToken(ctx, "hash", "h-bob") }))

	writeOperators(t, s, func(tx operators.Tx) error {
		return errors.Join(tx.TouchOperatorToken(ctx, bob.ID, at(time.Hour)), tx.RevokeOperatorToken(ctx, alice.ID, at(time.Hour)))
	})
	bob.LastUsedAt = at(time.Hour)
	same(t, "the live ones", []operators.Token{bob}, getOperators(t, s, func(tx operators.Tx) ([]operators.Token, error) { return tx.OperatorTokens(ctx) }))
	notFoundIn(t, s.ReadOperators, "a revoked token", func(tx operators.Tx) error {
		_, err := tx.LiveOperatorToken(ctx, "name", "alice")
		return err
	})
	// The name is free again once its token is revoked.
	writeOperators(t, s, func(tx operators.Tx) error {
		return tx.InsertOperatorToken(ctx, operators.Token{ID: disburse.NewID(), Name: "alice", Hash: "h-alice-2", CreatedAt: at(time.Hour)})
	})
}

func testOrganisationsPage(t *testing.T, s OperatorStore) {
	ctx := t.Context()
	var ws []world
	for range 5 {
		ws = append(ws, newWorld(t, s))
	}
	// Every world is made at t0: the order among them is by id, descending.
	slices.SortFunc(ws, func(a, b world) int { return strings.Compare(b.org.ID, a.org.ID) })
	page := func(after string, limit int) []string {
		orgs := getOperators(t, s, func(tx operators.Tx) ([]disburse.Organisation, error) { return tx.OrganisationsPage(ctx, after, limit) })
		var ids []string
		for _, o := range orgs {
			ids = append(ids, o.ID)
		}
		return ids
	}
	ids := func(ws []world) []string {
		var out []string
		for _, w := range ws {
			out = append(out, w.org.ID)
		}
		return out
	}
	same(t, "the first page", ids(ws[:3]), page("", 3))
	same(t, "the next page", ids(ws[3:]), page(ws[2].org.ID, 3))
	notFoundIn(t, s.ReadOperators, "a cursor naming no organisation", func(tx operators.Tx) error {
		_, err := tx.OrganisationsPage(ctx, disburse.NewID(), 3)
		return err
	})
	got := getOperators(t, s, func(tx operators.Tx) ([]disburse.Organisation, error) { return tx.OrganisationsPage(ctx, "", 1) })
	same(t, "an organisation's fields", []disburse.Organisation{ws[0].org}, got)
}

// AuditBefore00018 writes three entries as the audit log kept them before
// migration 00018: the actor a bare name, the state as before and after.
const AuditBefore00018 = `INSERT INTO audit_log (id, at, actor, action, organisation_id, subject, before, after) VALUES
	('01a22000-0000-7000-8000-000000000001', 1, 'op@example.org', 'organisation.settings',
		'01a22000-0000-7000-8000-0000000000aa', '01a22000-0000-7000-8000-0000000000aa', '{"a":1}', '{"a":2}'),
	('01a22000-0000-7000-8000-000000000002', 2, 'operator API', 'member.register', NULL, '254712345678', '', '{"firstname":"Ann"}'),
	('01a22000-0000-7000-8000-000000000003', 3, 'command line', 'apikey.issue',
		'01a22000-0000-7000-8000-0000000000aa', '01a22000-0000-7000-8000-0000000000bb', '', '{"prefix":"dak_abcdef"}')`

// CheckAuditMigrated checks what migration 00018 made of AuditBefore00018's
// entries: actors by kind, details as one object, dotted past-tense actions.
func CheckAuditMigrated(t *testing.T, s operators.Store) {
	t.Helper()
	got := getOperators(t, s, func(tx operators.Tx) ([]disburse.AuditEntry, error) {
		return tx.AuditEntries(t.Context(), operators.AuditFilter{Limit: 10})
	})
	org := "01a22000-0000-7000-8000-0000000000aa"
	want := []disburse.AuditEntry{
		{ID: "01a22000-0000-7000-8000-000000000003", At: time.UnixMicro(3).UTC(), Actor: disburse.CommandLine, Action: "apiKey.issued",
			OrganisationID: org, Subject: "01a22000-0000-7000-8000-0000000000bb", Details: `{"prefix":"dak_abcdef"}`},
		{ID: "01a22000-0000-7000-8000-000000000002", At: time.UnixMicro(2).UTC(), Actor: operators.Bootstrap, Action: "member.registered",
			Subject: "254712345678", Details: `{"firstname":"Ann"}`},
		{ID: "01a22000-0000-7000-8000-000000000001", At: time.UnixMicro(1).UTC(),
			Actor: disburse.Actor{Type: disburse.ActorPortalUser, Name: "op@example.org"}, Action: "settings.changed",
			OrganisationID: org, Subject: org, Details: `{"before":{"a":1},"after":{"a":2}}`},
	}
	same(t, "the entries after migration 00018", want, got)
}
