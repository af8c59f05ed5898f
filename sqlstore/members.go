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

// InsertMembers uses ON CONFLICT rather than catching the unique
// violation: on PostgreSQL a failed statement would abort the whole
// transaction. (WHERE true keeps SQLite from reading ON CONFLICT as a
// join's constraint.)
func (t *tx) InsertMembers(ctx context.Context, ms []disburse.Member) (map[string]bool, error) {
	cols := []Column{
		TextCol("msisdn", func(i int) string { return ms[i].Msisdn }),
		TextCol("firstname", func(i int) string { return ms[i].Firstname }),
		TextCol("lastname", func(i int) string { return ms[i].Lastname }),
		BoolCol("app_installed", func(i int) bool { return ms[i].AppInstalled }),
		TimeCol("registered_at", func(i int) time.Time { return ms[i].RegisteredAt }),
	}
	inserted := make(map[string]bool, len(ms))
	_, err := t.bulk(ctx, `INSERT INTO members (msisdn, firstname, lastname, app_installed, registered_at)
		SELECT r.msisdn, r.firstname, r.lastname, r.app_installed, r.registered_at FROM @rows AS r WHERE true
		ON CONFLICT (msisdn) DO NOTHING RETURNING msisdn`, nil, len(ms), cols,
		func(r *sql.Rows) error {
			var msisdn string
			err := r.Scan(&msisdn)
			inserted[msisdn] = true
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("insert members: %w", err)
	}
	return inserted, nil
}

func (t *tx) Members(ctx context.Context, msisdns []string) (map[string]disburse.Member, error) {
	msisdns = distinct(msisdns)
	return byKey(ctx, t, "members", `SELECT `+memberColumns+` FROM @rows AS r CROSS JOIN members m WHERE m.msisdn = r.msisdn`,
		msisdns, TextCol("msisdn", func(i int) string { return msisdns[i] }),
		func(r *sql.Rows) (disburse.Member, error) { return scanMember(r) },
		func(m disburse.Member) string { return m.Msisdn })
}
