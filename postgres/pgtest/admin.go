package pgtest

import (
	"context"
	"fmt"
	"net/url"

	"github.com/jackc/pgx/v5"
)

// connect opens one session of pgtest's own on the database at u. Like
// the tests' commits, its own need not survive a crash: not waiting for
// the WAL flush at each CREATE, ALTER and DROP DATABASE, and at each
// emptying, makes them a fraction of the cost.
func connect(ctx context.Context, u string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(u)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	cfg.RuntimeParams["synchronous_commit"] = "off"
	cfg.RuntimeParams["application_name"] = "pgtest"
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	return conn, nil
}

// adminExec runs one statement on the admin database in a session of its
// own: CREATE and DROP DATABASE cannot run in a transaction, and the
// session that holds the claims serves one caller at a time.
func adminExec(ctx context.Context, admin, query string) error {
	conn, err := connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, query); err != nil {
		return fmt.Errorf("%s: %w", query, err)
	}
	return nil
}

// withDatabase returns the URL admin with its database replaced by name.
func withDatabase(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("parse %s: %w", EnvURL, err)
	}
	u.Path = "/" + name
	return u.String(), nil
}
