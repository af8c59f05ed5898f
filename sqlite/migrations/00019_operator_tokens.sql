-- Named operator tokens (docs/operations.md "Operator tokens"): only the
-- hash is kept; a name is held by one live token at a time, and a revoked
-- token stays as the record of who held the name.

-- +goose Up
CREATE TABLE operator_tokens (
    id           TEXT PRIMARY KEY,
    name         TEXT NOT NULL,
    hash         TEXT NOT NULL UNIQUE,
    created_at   INTEGER NOT NULL,
    last_used_at INTEGER,
    revoked_at   INTEGER
) STRICT;
CREATE UNIQUE INDEX operator_tokens_live_name ON operator_tokens (name) WHERE revoked_at IS NULL;
-- The operator's list of organisations, newest first.
CREATE INDEX organisations_created ON organisations (created_at, id);

-- +goose Down
DROP INDEX organisations_created;
DROP TABLE operator_tokens;
