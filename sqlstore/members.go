package sqlstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/disburse/disburse"
)

const memberColumns = `m.msisdn, m.firstname, m.lastname, m.app_installed, m.registered_at`

func scanMember(r scanner) (disburse.Member, error) {
	var m disburse.Member
	err := r.Scan(&m.Msisdn, &m.Firstname, &m.Lastname, &m.AppInstalled, at(&m.RegisteredAt))
	return m, err
}

// InsertMember uses ON CONFLICT rather than catching the unique violation:
// on PostgreSQL a failed statement would abort the whole transaction.
func (t *tx) InsertMember(ctx context.Context, m disburse.Member) (bool, error) {
	res, err := t.exec(ctx, `INSERT INTO members (msisdn, firstname, lastname, app_installed, registered_at)
		VALUES (?, ?, ?, ?, ?) ON CONFLICT (msisdn) DO NOTHING`,
		m.Msisdn, m.Firstname, m.Lastname, m.AppInstalled, micros(m.RegisteredAt))
	if err != nil {
		return false, fmt.Errorf("insert member: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("insert member: %w", err)
	}
	return n == 1, nil
}

func (t *tx) Member(ctx context.Context, msisdn string) (disburse.Member, error) {
	m, err := scanMember(t.queryRow(ctx, `SELECT `+memberColumns+` FROM members m WHERE m.msisdn = ?`, msisdn))
	return m, found("member", err)
}

func (t *tx) Members(ctx context.Context, msisdns []string) (map[string]disburse.Member, error) {
	msisdns = distinct(msisdns)
	members := make(map[string]disburse.Member)
	_, err := t.bulk(ctx, `SELECT `+memberColumns+` FROM @rows AS r CROSS JOIN members m WHERE m.msisdn = r.msisdn`,
		nil, len(msisdns), []Column{TextCol("msisdn", func(i int) string { return msisdns[i] })},
		func(r *sql.Rows) error {
			m, err := scanMember(r)
			members[m.Msisdn] = m
			return err
		})
	if err != nil {
		return nil, fmt.Errorf("members: %w", err)
	}
	return members, nil
}
