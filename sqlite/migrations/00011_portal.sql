-- The management portal (issue 13): its users, their sessions, and the
-- audit log of every change made through the portal or the operator API.
-- Sessions live here, not in a process, so that every replica knows them
-- and a sign-out ends a session everywhere at once. The audit log is only
-- ever inserted into: no statement of the service updates or deletes it.

-- +goose Up
CREATE TABLE portal_users (
    id              TEXT PRIMARY KEY,
    email           TEXT NOT NULL UNIQUE,
    password_hash   TEXT NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('operator', 'organisation')),
    organisation_id TEXT REFERENCES organisations (id),
    created_at      INTEGER NOT NULL,
    CHECK ((role = 'organisation') = (organisation_id IS NOT NULL))
) STRICT;

CREATE TABLE portal_sessions (
    hash         TEXT PRIMARY KEY,
    user_id      TEXT NOT NULL REFERENCES portal_users (id),
    created_at   INTEGER NOT NULL,
    last_seen_at INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX portal_sessions_expires ON portal_sessions (expires_at);

CREATE TABLE audit_log (
    id              TEXT PRIMARY KEY,
    at              INTEGER NOT NULL,
    actor           TEXT NOT NULL,
    action          TEXT NOT NULL,
    organisation_id TEXT,
    subject         TEXT NOT NULL,
    before          TEXT NOT NULL,
    after           TEXT NOT NULL
) STRICT;
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_organisation ON audit_log (organisation_id, at, id);

-- The operator's list of batches across organisations, newest first.
CREATE INDEX batches_created ON batches (created_at, id);

-- +goose Down
DROP INDEX batches_created;
DROP TABLE audit_log;
DROP TABLE portal_sessions;
DROP TABLE portal_users;
