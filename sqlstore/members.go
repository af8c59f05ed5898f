package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/disburse/disburse"
)

const memberColumns = `m.msisdn, m.firstname, m.lastname, m.app_installed, m.registered_at`

func scanMember(r scanner) (disburse.Member, error) {
	var m disburse.Member
	err := r.Scan(&m.Msisdn, &m.Firstname, &m.Lastname, &m.AppInstalled, at(&m.RegisteredAt))
	return m, err
}

// insertMembers is InsertMembers' statement. It uses ON CONFLICT rather
// than catching the unique violation: on PostgreSQL a failed statement
// would abort the whole transaction. (WHERE true keeps SQLite from reading
// ON CONFLICT as a join's constraint.)
const insertMembers = `INSERT INTO members (msisdn, firstname, lastname, app_installed, registered_at)
	SELECT r.msisdn, r.firstname, r.lastname, r.app_installed, r.registered_at FROM @rows AS r WHERE true
	ON CONFLICT (msisdn) DO NOTHING RETURNING msisdn`

func memberRows(ms []disburse.Member) []Column {
	return []Column{
		TextCol("msisdn", func(i int) string { return ms[i].Msisdn }),
		TextCol("firstname", func(i int) string { return ms[i].Firstname }),
		TextCol("lastname", func(i int) string { return ms[i].Lastname }),
		BoolCol("app_installed", func(i int) bool { return ms[i].AppInstalled }),
		TimeCol("registered_at", func(i int) time.Time { return ms[i].RegisteredAt }),
	}
}

func (t *tx) InsertMembers(ctx context.Context, ms []disburse.Member) (map[string]bool, error) {
	inserted := make(map[string]bool, len(ms))
	_, err := t.bulk(ctx, insertMembers, nil, len(ms), memberRows(ms), func(r *sql.Rows) error { return scanInserted(r, inserted) })
	if err != nil {
		return nil, fmt.Errorf("insert members: %w", err)
	}
	return inserted, nil
}

func scanInserted(r scanner, inserted map[string]bool) error {
	var msisdn string
	err := r.Scan(&msisdn)
	inserted[msisdn] = true
	return err
}

// InsertMembersLockingLegs sends its three statements, none of which needs
// another's answer, together: one round trip on PostgreSQL, where a
// registration group's round trips were most of its time
// (docs/benchmarks.md, "Registration").
func (t *tx) InsertMembersLockingLegs(ctx context.Context, ms []disburse.Member) (disburse.NewMembers, error) {
	out := disburse.NewMembers{Inserted: make(map[string]bool, len(ms)), Organisations: make(map[string]disburse.Organisation)}
	if len(ms) == 0 {
		return out, nil
	}
	chunks, err := t.chunks(insertMembers, nil, len(ms), memberRows(ms))
	if err != nil {
		return out, err
	}
	msisdns := make([]string, len(ms))
	for i, m := range ms {
		msisdns[i] = m.Msisdn
	}
	legs, organisations, args := pendingLegsQueries(t.e, msisdns)
	err = t.Together(ctx, func() error {
		for c, err := range chunks {
			if err != nil {
				return err
			}
			t.hold(Statement{Query: t.e.Rebind(c.query), Args: c.args, Done: named("insert members"),
				Row: func(r Rows) error { return scanInserted(r, out.Inserted) }})
		}
		t.hold(Statement{Query: legs, Args: args, Done: named("pending legs"), Row: func(r Rows) error {
			p, err := scanPayment(r)
			out.Legs = append(out.Legs, p)
			return err
		}})
		return t.later(ctx, Statement{Query: organisations, Args: args, Done: named("organisations of pending legs"), Row: func(r Rows) error {
			o, err := scanOrganisation(r)
			out.Organisations[o.ID] = o
			return err
		}})
	})
	return out, err
}

func (t *tx) Members(ctx context.Context, msisdns []string) (map[string]disburse.Member, error) {
	msisdns = distinct(msisdns)
	return byKey(ctx, t, "members", `SELECT `+memberColumns+` FROM @rows AS r CROSS JOIN members m WHERE m.msisdn = r.msisdn`,
		msisdns, TextCol("msisdn", func(i int) string { return msisdns[i] }),
		func(r *sql.Rows) (disburse.Member, error) { return scanMember(r) },
		func(m disburse.Member) string { return m.Msisdn })
}
