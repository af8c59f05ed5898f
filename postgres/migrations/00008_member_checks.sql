-- A submit reads membership a page at a time at READ COMMITTED, and a
-- registration cannot see the submit's legs before it commits: a payee who
-- registers in between would have a PENDING leg that nobody settles. So a
-- submit that leaves legs PENDING queues its batch here, in its own
-- transaction, and the worker settles whatever is pending to members once
-- the submit has committed (docs/ledger.md, "Registration during a submit").

-- +goose Up
CREATE TABLE member_checks (
    batch_id   uuid PRIMARY KEY,
    created_at bigint NOT NULL
);

-- +goose Down
DROP TABLE member_checks;
