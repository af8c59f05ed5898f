package bench

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/disburse/disburse/sqlstore"
)

// The floor of POST /batches (docs/benchmarks.md, "Small requests"): the
// statements the service runs for one request (in one transaction, the
// organisation's default payout account's id, the batch, its audit entry;
// no token lookup, since the service keeps a token a second), one transaction a request, from as many clients as the
// service's load has workers, driven without HTTP. On PostgreSQL that is
// pgbench running pgbench/small_write_floor.sql, so that no Go runs either;
// on SQLite, which lives in the service's process, the closest equivalent:
// the same statements, prepared once, from that many goroutines over one
// writing connection with the store writer's settings (as the service
// writes through one), the lookups on a pool of readers beside it.

//go:embed pgbench/small_write_floor.sql
var smallWriteFloorSQL string

// smallFloorArgs are the values the floor's statements take: key is the
// API key of the token, the audit entry's actor.
type smallFloorArgs struct {
	tokenHash, org, account, key string
}

// keyOfToken is the query of the API key a token came from.
const keyOfToken = `SELECT api_key_id FROM tokens WHERE hash = ?`

// writesFloor runs the floor with clients clients for d and returns its
// transactions a second.
func writesFloor(ctx context.Context, dbURL string, a smallFloorArgs, clients int, d time.Duration) (float64, error) {
	if engineOf(dbURL) == "postgres" {
		return pgbenchWritesFloor(ctx, dbURL, a, clients, d)
	}
	return sqliteWritesFloor(ctx, strings.TrimPrefix(dbURL, "sqlite:"), a, clients, d)
}

// pgbenchTPS is pgbench's summary line of transactions a second.
var pgbenchTPS = regexp.MustCompile(`tps = ([0-9.]+) \(without initial connection time\)`)

// pgbenchWritesFloor runs pgbench (on PATH) on the script, with the store's
// session settings that change plans (no JIT), two threads as the machine
// has two cores.
func pgbenchWritesFloor(ctx context.Context, dbURL string, a smallFloorArgs, clients int, d time.Duration) (float64, error) {
	conn, err := libpqURL(dbURL)
	if err != nil {
		return 0, err
	}
	fl, err := openPostgresFloor(ctx, dbURL)
	if err != nil {
		return 0, err
	}
	err = fl.conn.QueryRow(ctx, sqlstore.RebindDollar(keyOfToken), a.tokenHash).Scan(&a.key)
	fl.close()
	if err != nil {
		return 0, err
	}
	dir, err := os.MkdirTemp("", "disburse-small-floor-")
	if err != nil {
		return 0, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "small_write_floor.sql")
	if err := os.WriteFile(script, []byte(smallWriteFloorSQL), 0o600); err != nil {
		return 0, err
	}
	seconds := max(1, int(d.Round(time.Second)/time.Second))
	cmd := exec.CommandContext(ctx, "pgbench", "-n", "-M", "prepared", "-c", strconv.Itoa(clients), "-j", strconv.Itoa(min(clients, 2)),
		"-T", strconv.Itoa(seconds), "-f", script, "-D", "hash="+a.tokenHash, "-D", "org="+a.org, "-D", "account="+a.account,
		"-D", "key="+a.key, "-D", "now="+strconv.FormatInt(time.Now().UnixMicro(), 10), conn)
	cmd.Env = append(os.Environ(), "PGOPTIONS=-c jit=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("bench: pgbench: %v\n%s", err, out)
	}
	m := pgbenchTPS.FindSubmatch(out)
	if m == nil {
		return 0, fmt.Errorf("bench: pgbench printed no rate:\n%s", out)
	}
	return strconv.ParseFloat(string(m[1]), 64)
}

// libpqURL is dbURL with only the parameters libpq knows: pgx takes any
// other as a session setting, which libpq refuses.
func libpqURL(dbURL string) (string, error) {
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", err
	}
	q := url.Values{}
	for _, k := range []string{"sslmode", "connect_timeout", "application_name"} {
		if v := u.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// sqliteWritesFloor runs the floor's statements from clients goroutines
// for d and returns the transactions a second.
func sqliteWritesFloor(ctx context.Context, path string, a smallFloorArgs, clients int, d time.Duration) (float64, error) {
	w, err := openSQLiteFloor(path)
	if err != nil {
		return 0, err
	}
	defer w.close()
	readers, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)")
	if err != nil {
		return 0, err
	}
	defer readers.Close()
	readers.SetMaxOpenConns(clients)
	if err := readers.QueryRowContext(ctx, keyOfToken, a.tokenHash).Scan(&a.key); err != nil {
		return 0, err
	}
	st, err := prepareSmallFloor(ctx, w.db)
	if err != nil {
		return 0, err
	}
	defer st.close()
	counts := make([]int, clients)
	errs := make([]error, clients)
	var wg sync.WaitGroup
	start := time.Now()
	deadline := start.Add(d)
	for k := range clients {
		wg.Go(func() {
			for ; time.Now().Before(deadline) && errs[k] == nil; counts[k]++ {
				errs[k] = st.request(ctx, w.db, a)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := firstError(errs); err != nil {
		return 0, err
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	return float64(total) / took.Seconds(), nil
}

// smallFloorStatements are the floor's statements, prepared once.
type smallFloorStatements struct {
	accounts, batch, audit *sql.Stmt
}

// The statements of pgbench/small_write_floor.sql in SQLite's syntax.
const (
	sqliteFloorAccounts = `SELECT a.id FROM accounts a WHERE a.organisation_id = ? AND a.kind = 'PAYOUT' AND a.is_default
		ORDER BY a.created_at DESC, a.id DESC LIMIT 1`
	sqliteFloorBatch = `INSERT INTO batches (id, organisation_id, account_id, name, external_id, status,
		payments_amount, payments_count, referrals_amount, draft_amount, draft_count,
		pending_amount, pending_count, settled_amount, settled_count, cancelled_amount, cancelled_count, held_amount,
		created_at, submitted_at, closed_at, reversal_due_at, approval_id)
		VALUES (?, ?, ?, 'small write', '', 'DRAFT', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, ?, NULL, NULL, NULL, NULL)`
	sqliteFloorAudit = `INSERT INTO audit_log (id, at, actor_type, actor_id, actor, action, organisation_id, subject, details)
		VALUES (?, ?, 'apiKey', ?, 'dak_xxxxxx', 'batch.created', ?, ?, '{"externalId":"","name":"small write","status":"DRAFT"}')`
)

func prepareSmallFloor(ctx context.Context, writer *sql.DB) (*smallFloorStatements, error) {
	var st smallFloorStatements
	var err error
	for _, p := range []struct {
		db    *sql.DB
		query string
		into  **sql.Stmt
	}{{writer, sqliteFloorAccounts, &st.accounts}, {writer, sqliteFloorBatch, &st.batch}, {writer, sqliteFloorAudit, &st.audit}} {
		if *p.into, err = p.db.PrepareContext(ctx, p.query); err != nil {
			st.close()
			return nil, err
		}
	}
	return &st, nil
}

func (st *smallFloorStatements) close() {
	for _, s := range []*sql.Stmt{st.accounts, st.batch, st.audit} {
		if s != nil {
			s.Close()
		}
	}
}

// request is one POST /batches's statements: one transaction.
func (st *smallFloorStatements) request(ctx context.Context, writer *sql.DB, a smallFloorArgs) error {
	tx, err := writer.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := readAll(tx.StmtContext(ctx, st.accounts).QueryContext(ctx, a.org)); err != nil {
		return err
	}
	id, now := uuid.NewString(), time.Now().UnixMicro()
	if _, err := tx.StmtContext(ctx, st.batch).ExecContext(ctx, id, a.org, a.account, now); err != nil {
		return err
	}
	if _, err := tx.StmtContext(ctx, st.audit).ExecContext(ctx, uuid.NewString(), now, a.key, a.org, id); err != nil {
		return err
	}
	return tx.Commit()
}

// readAll reads every row of a query, as the service reads its answer.
func readAll(rows *sql.Rows, err error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return err
	}
	dest := make([]any, len(cols))
	for k := range dest {
		dest[k] = new(any)
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
	}
	return rows.Err()
}
