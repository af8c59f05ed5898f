package bench

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
)

// The floor of registration: the least work the database does to register
// a group of the --registration mode's payees, in one transaction a group,
// with none of the service's HTTP, checks or answers (docs/benchmarks.md,
// "What the floors do"). On PostgreSQL it is pgbench/registration_floor.sql's
// floor_register, one round trip a group; on SQLite, which runs in this
// process, the same statements sent one after the other. It is run with the
// groupings the clients of a round allow, so that the service's rate is
// read against the best grouping its callers could have formed.

//go:embed pgbench/registration_floor.sql
var registrationFloorSQL string

// floorGrouping is one way of grouping: groups of size registrations,
// at of them at once.
type floorGrouping struct{ size, at int }

// floorGroupings are the groupings clients allow: all of them in one group
// at a time, and, since the service runs two groups at once (register.go),
// two groups of half of them each. A group holds at most 128, as the
// service's do.
func floorGroupings(clients int) []floorGrouping {
	gs := []floorGrouping{{size: min(clients, 128), at: 1}}
	if clients >= 2 {
		gs = append(gs, floorGrouping{size: min((clients+1)/2, 128), at: 2})
	}
	return gs
}

// maxFloorGroupings is the most groupings floorGroupings returns.
const maxFloorGroupings = 2

// groupFloor registers the next payees of its source, k at a time.
type groupFloor interface {
	// register registers the next k payees in one transaction and returns
	// how many it registered: 0 once none are left.
	register(ctx context.Context, k int) (int, error)
	close() error
}

// registrationFloor registers payees, split evenly between the
// groupings, grouping by grouping, and returns the time each took.
func registrationFloor(ctx context.Context, e *env, w *registrationWorld, payees []string, groupings []floorGrouping) ([]time.Duration, error) {
	took := make([]time.Duration, len(groupings))
	share := len(payees) / len(groupings)
	for k, g := range groupings {
		var err error
		if took[k], err = runFloorGrouping(ctx, e, w, payees[k*share:(k+1)*share], g); err != nil {
			return nil, fmt.Errorf("registration floor, groups of %d, %d at once: %w", g.size, g.at, err)
		}
	}
	return took, nil
}

// runFloorGrouping registers payees in groups of g.size, g.at groups at
// once, each on a connection of its own, and returns the wall time.
func runFloorGrouping(ctx context.Context, e *env, w *registrationWorld, payees []string, g floorGrouping) (time.Duration, error) {
	floors := make([]groupFloor, 0, g.at)
	defer func() {
		for _, f := range floors {
			f.close()
		}
	}()
	src := &payeeSource{payees: payees}
	for range g.at {
		f, err := openGroupFloor(ctx, e, w, src)
		if err != nil {
			return 0, err
		}
		floors = append(floors, f)
	}
	if engineOf(e.cfg.DatabaseURL) == "postgres" {
		if err := floors[0].(*postgresGroupFloor).load(ctx, payees); err != nil {
			return 0, err
		}
	}
	errs := make([]error, len(floors))
	registered := make([]int, len(floors))
	var wg sync.WaitGroup
	start := time.Now()
	for k, f := range floors {
		wg.Go(func() {
			for n := 1; n > 0 && errs[k] == nil; registered[k] += n {
				n, errs[k] = f.register(ctx, g.size)
			}
		})
	}
	wg.Wait()
	took := time.Since(start)
	if err := firstError(errs); err != nil {
		return 0, err
	}
	total := 0
	for _, n := range registered {
		total += n
	}
	if total != len(payees) {
		return 0, fmt.Errorf("registered %d of %d", total, len(payees))
	}
	return took, nil
}

func openGroupFloor(ctx context.Context, e *env, w *registrationWorld, src *payeeSource) (groupFloor, error) {
	if engineOf(e.cfg.DatabaseURL) == "postgres" {
		fl, err := openPostgresFloor(ctx, e.cfg.DatabaseURL)
		return &postgresGroupFloor{fl}, err
	}
	fl, err := openSQLiteFloor(strings.TrimPrefix(e.cfg.DatabaseURL, "sqlite:"))
	if err != nil {
		return nil, err
	}
	f := &sqliteGroupFloor{db: fl, src: src, clock: e.clock, holding: map[string]uuid.UUID{}, currency: w.orgs[0].currency}
	for _, o := range w.orgs {
		f.holding[o.id] = uuid.MustParse(o.holdingID)
	}
	return f, nil
}

// payeeSource hands out payees, the next k at a time, to the floor's
// connections on SQLite; on PostgreSQL floor_register takes them from a
// table.
type payeeSource struct {
	mu     sync.Mutex
	payees []string
}

func (s *payeeSource) next(k int) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.payees[:min(k, len(s.payees))]
	s.payees = s.payees[len(out):]
	return out
}

// postgresGroupFloor calls floor_register on a connection of its own.
type postgresGroupFloor struct{ *postgresFloor }

// preparePostgresFloor analyses the tables, so that the floor's plans, cached
// by PL/pgSQL, are the best the database has, and loads floor_register. The
// service's plans do not depend on the statistics (docs/benchmarks.md).
func preparePostgresFloor(ctx context.Context, url string) error {
	fl, err := openPostgresFloor(ctx, url)
	if err != nil {
		return err
	}
	defer fl.close()
	if _, err := fl.conn.Exec(ctx, "ANALYZE"); err != nil {
		return err
	}
	_, err = fl.conn.Exec(ctx, registrationFloorSQL)
	return err
}

// load makes payees, in this order, the ones floor_register takes next.
func (f *postgresGroupFloor) load(ctx context.Context, payees []string) error {
	_, err := f.conn.Exec(ctx, `TRUNCATE floor_payees`)
	if err == nil {
		_, err = f.conn.Exec(ctx, `INSERT INTO floor_payees (n, msisdn) SELECT n, m FROM unnest($1::text[]) WITH ORDINALITY AS t(m, n)`, payees)
	}
	if err == nil {
		_, err = f.conn.Exec(ctx, `ALTER SEQUENCE floor_next_payee RESTART`)
	}
	return err
}

func (f *postgresGroupFloor) register(ctx context.Context, k int) (int, error) {
	var n int
	err := f.conn.QueryRow(ctx, `SELECT floor_register($1)`, k).Scan(&n)
	return n, err
}

// dropPostgresFloor removes what preparePostgresFloor loaded.
func dropPostgresFloor(ctx context.Context, url string) error {
	fl, err := openPostgresFloor(ctx, url)
	if err != nil {
		return err
	}
	defer fl.close()
	_, err = fl.conn.Exec(ctx, `DROP FUNCTION floor_register(int); DROP TABLE floor_payees; DROP SEQUENCE floor_next_payee`)
	return err
}

// sqliteGroupFloor writes what floor_register writes, a statement at a
// time, on a connection with the store writer's settings.
type sqliteGroupFloor struct {
	db       *sqliteFloor
	src      *payeeSource
	clock    *clock
	holding  map[string]uuid.UUID // by organisation id
	currency string
}

func (f *sqliteGroupFloor) close() error { return f.db.close() }

func (f *sqliteGroupFloor) register(ctx context.Context, k int) (int, error) {
	payees := f.src.next(k)
	if len(payees) == 0 {
		return 0, nil
	}
	tx, err := f.db.begin(ctx)
	if err != nil {
		return 0, err
	}
	if err := f.write(ctx, tx, payees, f.clock.now().UnixMicro()); err != nil {
		tx.rollback(ctx)
		return 0, err
	}
	return len(payees), tx.commit(ctx)
}

// settledLeg is a leg a registration settled.
type settledLeg struct {
	id, batch, org, msisdn string
	amount                 int64
}

// write registers payees: the members, their wallets, their pending legs
// settled, a transfer each, the balances, the batches' summaries and an
// audit entry each.
func (f *sqliteGroupFloor) write(ctx context.Context, tx floorTx, payees []string, now int64) error {
	list, err := json.Marshal(payees)
	if err != nil {
		return err
	}
	if _, err := tx.exec(ctx, `INSERT INTO members (msisdn, firstname, lastname, app_installed, registered_at)
		SELECT value, '', '', 0, ? FROM json_each(?)`, now, string(list)); err != nil {
		return err
	}
	wallets, err := f.insertWallets(ctx, tx, payees, now)
	if err != nil {
		return err
	}
	var legs []settledLeg
	err = tx.query(ctx, `UPDATE payments SET status = 'SETTLED', settled_at = ?
		WHERE held AND msisdn IN (SELECT value FROM json_each(?)) RETURNING id, amount, batch_id, organisation_id, msisdn`,
		[]any{now, string(list)}, func(scan func(...any) error) error {
			var l settledLeg
			err := scan(&l.id, &l.amount, &l.batch, &l.org, &l.msisdn)
			legs = append(legs, l)
			return err
		})
	if err != nil {
		return err
	}
	if err := f.moveLegs(ctx, tx, legs, wallets, now); err != nil {
		return err
	}
	return insertRegistrationAudit(ctx, tx, payees, now)
}

func (f *sqliteGroupFloor) insertWallets(ctx context.Context, tx floorTx, payees []string, now int64) (map[string]uuid.UUID, error) {
	wallets := make(map[string]uuid.UUID, len(payees))
	i := 0
	err := tx.insert(ctx, "accounts", []string{"id", "kind", "name", "currency", "balance", "is_default", "msisdn", "created_at"}, func(dst []any) bool {
		if i == len(payees) {
			return false
		}
		id := uuid.Must(uuid.NewV7())
		wallets[payees[i]] = id
		dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7] = id, "WALLET", payees[i], f.currency, int64(0), false, payees[i], now
		i++
		return true
	})
	return wallets, err
}

// moveLegs writes a transfer a leg, the balances and the summaries.
func (f *sqliteGroupFloor) moveLegs(ctx context.Context, tx floorTx, legs []settledLeg, wallets map[string]uuid.UUID, now int64) error {
	i := 0
	err := tx.insert(ctx, "transfers", []string{"id", "from_account_id", "to_account_id", "amount", "kind", "payment_id", "leg", "reference", "created_at"}, func(dst []any) bool {
		if i == len(legs) {
			return false
		}
		l := legs[i]
		dst[0], dst[1], dst[2], dst[3], dst[4], dst[5], dst[6], dst[7], dst[8] = uuid.Must(uuid.NewV7()), f.holding[l.org], wallets[l.msisdn], l.amount, "SETTLE", l.id, "PAYMENT", "", now
		i++
		return true
	})
	if err != nil {
		return err
	}
	deltas := map[uuid.UUID]int64{}
	type batchSum struct{ n, amount int64 }
	sums := map[string]batchSum{}
	for _, l := range legs {
		deltas[f.holding[l.org]] -= l.amount
		deltas[wallets[l.msisdn]] += l.amount
		s := sums[l.batch]
		sums[l.batch] = batchSum{s.n + 1, s.amount + l.amount}
	}
	var ids []uuid.UUID
	var amounts []int64
	for id, d := range deltas {
		ids, amounts = append(ids, id), append(amounts, d)
	}
	if err := tx.addToBalances(ctx, ids, amounts); err != nil {
		return err
	}
	var rows [][3]any
	for id, s := range sums {
		rows = append(rows, [3]any{id, s.n, s.amount})
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	_, err = tx.exec(ctx, `UPDATE batches SET pending_count = pending_count - r.n, pending_amount = pending_amount - r.amount,
		settled_count = settled_count + r.n, settled_amount = settled_amount + r.amount, held_amount = held_amount - r.amount
		FROM (SELECT value ->> 0 AS id, value ->> 1 AS n, value ->> 2 AS amount FROM json_each(?)) AS r WHERE batches.id = r.id`, string(b))
	return err
}

func insertRegistrationAudit(ctx context.Context, tx floorTx, payees []string, now int64) error {
	rows := make([][2]string, len(payees))
	for i, m := range payees {
		rows[i] = [2]string{uuid.Must(uuid.NewV7()).String(), m}
	}
	b, err := json.Marshal(rows)
	if err != nil {
		return err
	}
	n, err := tx.exec(ctx, `INSERT INTO audit_log (id, at, actor, action, organisation_id, subject)
		SELECT value ->> 0, ?, 'operator API', 'member.register', NULL, value ->> 1 FROM json_each(?)`, now, string(b))
	if err == nil && n != int64(len(payees)) {
		err = errors.New("audit: not every entry written")
	}
	return err
}
