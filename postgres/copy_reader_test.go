package postgres_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/disburse/disburse/postgres"
	"github.com/disburse/disburse/postgres/pgtest"
	"github.com/disburse/disburse/sqlstore"
)

// copiedRow is one row of the table TestCopyReader copies into, as read back.
type copiedRow struct {
	Text    string
	OptText *string
	ID      *string
	Int     int64
	Flag    bool
	At      *int64
}

// TestCopyReader: rows of every column type, NULLs among them, reach the
// server through COPY's binary format as they were given, in order, over
// many of the connection's reads (a row split between two of them), each
// read only once ready has reported it.
func TestCopyReader(t *testing.T) {
	ctx := t.Context()
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE copied (seq bigint GENERATED ALWAYS AS IDENTITY,
		text text NOT NULL, opt_text text, id uuid, n bigint NOT NULL, flag boolean NOT NULL, at bigint)`); err != nil {
		t.Fatal(err)
	}
	const rows = 5000 // about 400 KB: several reads of 64 KiB
	at := time.Date(2026, 11, 29, 17, 0, 0, 123456000, time.UTC)
	want := make([]copiedRow, rows)
	for i := range want {
		w := copiedRow{Text: fmt.Sprintf("row %d, Zoë ✓ %s", i, strings.Repeat("x", i%40)), Int: int64(i*7919) - 1<<40, Flag: i%3 == 0}
		if i%2 == 0 {
			s := fmt.Sprint("opt ", i)
			w.OptText = &s
		}
		if i%5 != 0 {
			s := fmt.Sprintf("01939a6e-0000-7000-8000-%012d", i)
			w.ID = &s
		}
		if i%4 != 0 {
			us := at.Add(time.Duration(i) * time.Second).UnixMicro()
			w.At = &us
		}
		want[i] = w
	}
	str := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	ready := 0 // rows reported ready; the reader must not read beyond
	next := func() (int, error) {
		ready = min(ready+777, rows)
		return ready, nil
	}
	cols := []sqlstore.Column{
		sqlstore.TextCol("text", func(i int) string {
			if i >= ready {
				t.Fatalf("row %d read with %d ready", i, ready)
			}
			return want[i].Text
		}),
		sqlstore.OptTextCol("opt_text", func(i int) string { return str(want[i].OptText) }),
		sqlstore.IDCol("id", func(i int) string { return str(want[i].ID) }),
		sqlstore.IntCol("n", func(i int) int64 { return want[i].Int }),
		sqlstore.BoolCol("flag", func(i int) bool { return want[i].Flag }),
		sqlstore.TimeCol("at", func(i int) time.Time {
			if want[i].At == nil {
				return time.Time{}
			}
			return time.UnixMicro(*want[i].At)
		}),
	}
	tag, err := conn.PgConn().CopyFrom(ctx, postgres.NewCopyReader("copied", cols, rows, next),
		"COPY copied (text, opt_text, id, n, flag, at) FROM STDIN (FORMAT binary)")
	if err != nil {
		t.Fatal(err)
	}
	if tag.RowsAffected() != rows {
		t.Fatalf("copied %d rows, want %d", tag.RowsAffected(), rows)
	}
	read, err := conn.Query(ctx, `SELECT text, opt_text, id::text, n, flag, at FROM copied ORDER BY seq`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := pgx.CollectRows(read, pgx.RowToStructByPos[copiedRow])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rows read back (-want +got):\n%s", diff)
	}
}

// TestCopyReaderRefusesABadID: an id that is no uuid fails the copy, and
// no row of it stays.
func TestCopyReaderRefusesABadID(t *testing.T) {
	ctx := t.Context()
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE copied (id uuid)`); err != nil {
		t.Fatal(err)
	}
	ids := []string{"01939a6e-0000-7000-8000-000000000001", "not-a-uuid"}
	cols := []sqlstore.Column{sqlstore.IDCol("id", func(i int) string { return ids[i] })}
	_, err := conn.PgConn().CopyFrom(ctx, postgres.NewCopyReader("copied", cols, len(ids), sqlstore.AllReady(len(ids))), "COPY copied (id) FROM STDIN (FORMAT binary)")
	if err == nil || !strings.Contains(err.Error(), "not a uuid") {
		t.Fatalf("copy of a bad id: err = %v, want one naming it", err)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM copied`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after a failed copy: %d (%v), want 0", n, err)
	}
}

// TestCopyReaderEndsWhenReadyFails: an error from ready ends the copy with
// it, after rows already sent, and no row stays.
func TestCopyReaderEndsWhenReadyFails(t *testing.T) {
	ctx := t.Context()
	conn := pgtest.Conn(t)
	if _, err := conn.Exec(ctx, `CREATE TEMP TABLE copied (n bigint)`); err != nil {
		t.Fatal(err)
	}
	const rows = 20000
	failed := errors.New("payment 12000 failed its checks")
	ready := 0
	next := func() (int, error) {
		if ready == 12000 {
			return 0, failed
		}
		ready += 1000
		return ready, nil
	}
	cols := []sqlstore.Column{sqlstore.IntCol("n", func(i int) int64 { return int64(i) })}
	_, err := conn.PgConn().CopyFrom(ctx, postgres.NewCopyReader("copied", cols, rows, next), "COPY copied (n) FROM STDIN (FORMAT binary)")
	if err == nil || !strings.Contains(err.Error(), failed.Error()) {
		t.Fatalf("copy whose rows failed: err = %v, want one naming %q", err, failed)
	}
	var n int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM copied`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("rows after a failed copy: %d (%v), want 0", n, err)
	}
}
