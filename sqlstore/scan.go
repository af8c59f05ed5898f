package sqlstore

import (
	"database/sql"
	"fmt"
	"time"

	"github.com/disburse/disburse"
	"github.com/disburse/disburse/auth"
)

// Times are stored in both engines as BIGINT unix microseconds, UTC: the
// precision the service keeps (Service.now truncates to it), compared and
// indexed as plain integers, with no driver time zone handling in between.
// The zero time.Time is NULL.

// micros is a time as a query argument.
func micros(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// nullID is an optional id as a query argument: empty is NULL, so that
// foreign keys and uuid columns accept it.
func nullID(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// nullMoney is an optional amount as a query argument: nil is NULL.
func nullMoney(m *disburse.Money) any {
	if m == nil {
		return nil
	}
	return int64(*m)
}

// moneyDest scans a nullable amount column into a *disburse.Money; NULL is nil.
type moneyDest struct{ m **disburse.Money }

func (d moneyDest) Scan(src any) error {
	var n sql.NullInt64
	if err := n.Scan(src); err != nil {
		return err
	}
	*d.m = nil
	if n.Valid {
		v := disburse.Money(n.Int64)
		*d.m = &v
	}
	return nil
}

// optMoney is the scan destination of a nullable amount column.
func optMoney(m **disburse.Money) sql.Scanner { return moneyDest{m} }

// timeDest scans a nullable microsecond column into a time.Time.
type timeDest struct{ t *time.Time }

func (d timeDest) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		*d.t = time.Time{}
	case int64:
		*d.t = time.UnixMicro(v).UTC()
	default:
		return fmt.Errorf("scan time: unexpected %T", src)
	}
	return nil
}

// textDest scans a nullable text or id column into a string; NULL is "".
type textDest struct{ s *string }

func (d textDest) Scan(src any) error {
	var ns sql.NullString
	if err := ns.Scan(src); err != nil {
		return err
	}
	*d.s = ns.String
	return nil
}

// at is the scan destination of a time column.
func at(t *time.Time) sql.Scanner { return timeDest{t} }

// opt is the scan destination of a nullable text or id column.
func opt(s *string) sql.Scanner { return textDest{s} }

// rolesDest scans a text column of roles joined by commas (migration
// 00020) into a set.
type rolesDest struct{ rs *auth.Roles }

func (d rolesDest) Scan(src any) error {
	var text string
	if err := (textDest{&text}).Scan(src); err != nil {
		return err
	}
	rs, err := auth.ParseRoles("Roles", text)
	if err != nil {
		return fmt.Errorf("scan roles %q: %w", text, err)
	}
	*d.rs = rs
	return nil
}

// roles is the scan destination of a column of roles.
func roles(rs *auth.Roles) sql.Scanner { return rolesDest{rs} }

// scanner is a *sql.Row or *sql.Rows.
type scanner interface{ Scan(dest ...any) error }
