package storetest

import (
	"errors"
	"testing"
	"time"

	"github.com/disburse/disburse"
)

func testAuditEntries(t *testing.T, s disburse.Store) {
	ctx := t.Context()
	w, other := newWorld(t, s), newWorld(t, s)
	var entries []disburse.AuditEntry
	for i := range 5 {
		org := w.org.ID
		if i == 2 {
			org = other.org.ID
		}
		entries = append(entries, disburse.AuditEntry{ID: disburse.NewID(), At: at(time.Duration(i) * time.Minute), Actor: "op@example.org",
			Action: "organisation.settings", OrganisationID: org, Subject: org, Before: `{"a":1}`, After: `{"a":2}`})
	}
	member := disburse.AuditEntry{ID: disburse.NewID(), At: at(time.Hour), Actor: "operator API", Action: "member.register", Subject: msisdnKE, After: `{}`}
	write(t, s, func(tx disburse.Tx) error {
		err := tx.InsertAudit(ctx, member)
		for _, e := range entries {
			err = errors.Join(err, tx.InsertAudit(ctx, e))
		}
		return err
	})
	audit := func(org, before string, limit int) []disburse.AuditEntry {
		return get(t, s, func(tx disburse.Tx) ([]disburse.AuditEntry, error) { return tx.AuditEntries(ctx, org, before, limit) })
	}
	same(t, "newest first", []disburse.AuditEntry{member, entries[4], entries[3]}, audit("", "", 3))
	same(t, "the next page", []disburse.AuditEntry{entries[2], entries[1], entries[0]}, audit("", entries[3].ID, 3))
	same(t, "one organisation's", []disburse.AuditEntry{entries[4], entries[3], entries[1], entries[0]}, audit(w.org.ID, "", 10))
	same(t, "one organisation's next page", []disburse.AuditEntry{entries[1], entries[0]}, audit(w.org.ID, entries[3].ID, 10))
}
