package pgtest

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/jackc/pgx/v5"
)

// maxSlots bounds the pool: more databases than this claimed at once is a
// runaway, not a busy run.
const maxSlots = 256

// pool is a test binary's side of the pool: the template, and the admin
// session that holds the binary's claims.
type pool struct {
	admin    string // EnvURL
	hash     string // of the migrations, in every name
	template template

	mu   sync.Mutex // guards conn (a pgx.Conn serves one caller at a time) and held
	conn *pgx.Conn  // on the admin database; holds the claims
	held map[int]bool
}

// shared is the test binary's pool, made by its first test.
var shared struct {
	once sync.Once
	p    *pool
	err  error
}

func sharedPool(ctx context.Context, admin string) (*pool, error) {
	shared.once.Do(func() { shared.p, shared.err = newPool(ctx, admin) })
	return shared.p, shared.err
}

func newPool(ctx context.Context, admin string) (*pool, error) {
	hash, err := migrationsHash()
	if err != nil {
		return nil, err
	}
	template, err := ensureTemplate(ctx, admin, hash)
	if err != nil {
		return nil, fmt.Errorf("template database: %w", err)
	}
	conn, err := connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	return &pool{admin: admin, hash: hash, template: template, conn: conn, held: map[int]bool{}}, nil
}

// name is the name of slot n's database.
func (p *pool) name(n int) string { return fmt.Sprintf("disburse_pool_%s_%d", p.hash, n) }

// claim locks the first slot that no test, in this binary or another,
// holds, and returns it.
func (p *pool) claim(ctx context.Context) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for n := range maxSlots {
		if p.held[n] {
			continue // the lock is the session's: taking it again would succeed
		}
		var ok bool
		if err := p.conn.QueryRow(ctx, "SELECT pg_try_advisory_lock($1)", slotLock(p.name(n))).Scan(&ok); err != nil {
			return 0, fmt.Errorf("claim a pool database: %w", err)
		}
		if ok {
			p.held[n] = true
			return n, nil
		}
	}
	return 0, fmt.Errorf("all %d pool databases are claimed", maxSlots)
}

// release gives slot n back. An unlock that finds no lock means the admin
// session was lost, and with it every claim: another binary may have
// taken this test's database.
func (p *pool) release(ctx context.Context, n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.held, n)
	var ok bool
	if err := p.conn.QueryRow(ctx, "SELECT pg_advisory_unlock($1)", slotLock(p.name(n))).Scan(&ok); err != nil {
		return fmt.Errorf("release %s: %w", p.name(n), err)
	}
	if !ok {
		return fmt.Errorf("release %s: the claim was lost", p.name(n))
	}
	return nil
}

// prepare returns the URL of slot n's database, emptied; or, if it is
// missing or a test changed its schema or settings, cloned anew.
func (p *pool) prepare(ctx context.Context, n int) (string, error) {
	name := p.name(n)
	u, err := withDatabase(p.admin, name)
	if err != nil {
		return "", err
	}
	err = p.empty(ctx, u)
	if !errors.Is(err, errStale) {
		return u, err
	}
	for _, q := range []string{
		// FORCE: the sessions of a test that changed it may still be open.
		"DROP DATABASE IF EXISTS " + name + " WITH (FORCE)",
		"CREATE DATABASE " + name + " TEMPLATE " + p.template.name,
		// A test's commits need not survive a crash: not waiting for the
		// WAL flush at every commit makes the tests much faster.
		"ALTER DATABASE " + name + " SET synchronous_commit = off",
	} {
		if err := adminExec(ctx, p.admin, q); err != nil {
			return "", err
		}
	}
	return u, nil
}

// slotLock is the advisory lock that claims the database name.
func slotLock(name string) int64 {
	h := sha256.Sum256([]byte("pgtest claim " + name))
	return int64(binary.BigEndian.Uint64(h[:8]))
}
