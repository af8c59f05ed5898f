-- The management portal (issue 13): its users, their sessions, and the
-- audit log of every change made through the portal or the operator API.
-- Sessions live here, not in a process, so that every replica knows them
-- and a sign-out ends a session everywhere at once. The audit log is only
-- ever inserted into: no statement of the service updates or deletes it.

-- +goose Up
CREATE TABLE portal_users (
    id              uuid PRIMARY KEY,
    email           text NOT NULL UNIQUE,
    password_hash   text NOT NULL,
    role            text NOT NULL CHECK (role IN ('operator', 'organisation')),
    organisation_id uuid REFERENCES organisations (id),
    created_at      bigint NOT NULL,
    CHECK ((role = 'organisation') = (organisation_id IS NOT NULL))
);

CREATE TABLE portal_sessions (
    hash         text PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES portal_users (id),
    created_at   bigint NOT NULL,
    last_seen_at bigint NOT NULL,
    expires_at   bigint NOT NULL
);
CREATE INDEX portal_sessions_expires ON portal_sessions (expires_at);

CREATE TABLE audit_log (
    id              uuid PRIMARY KEY,
    at              bigint NOT NULL,
    actor           text NOT NULL,
    action          text NOT NULL,
    organisation_id uuid,
    subject         text NOT NULL,
    before          text NOT NULL,
    after           text NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at, id);
CREATE INDEX audit_log_organisation ON audit_log (organisation_id, at, id);

-- The operator's list of batches across organisations, newest first.
CREATE INDEX batches_created ON batches (created_at, id);

-- +goose Down
DROP INDEX batches_created;
DROP TABLE audit_log;
DROP TABLE portal_sessions;
DROP TABLE portal_users;
