-- Four-eyes approval of a submit (docs/api.md section 4.3). An
-- organisation's approval threshold, NULL while approval is off; a batch
-- whose submit waits for an approval holds its id, and stays DRAFT while
-- it does; the approvals themselves, one PENDING at most per batch. An
-- approval names its requester and decider as the audit log names actors.

-- +goose Up
ALTER TABLE organisations ADD COLUMN approval_threshold INTEGER CHECK (approval_threshold >= 0);
ALTER TABLE batches ADD COLUMN approval_id TEXT CHECK (approval_id IS NULL OR status = 'DRAFT');
CREATE TABLE approvals (
    id                TEXT PRIMARY KEY,
    organisation_id   TEXT NOT NULL REFERENCES organisations (id),
    batch_id          TEXT NOT NULL REFERENCES batches (id),
    status            TEXT NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'CANCELLED')),
    requested_by_type TEXT NOT NULL,
    requested_by_id   TEXT NOT NULL,
    requested_by_name TEXT NOT NULL,
    requested_at      INTEGER NOT NULL,
    payments_count    INTEGER NOT NULL,
    payments_amount   INTEGER NOT NULL,
    referrals_amount  INTEGER NOT NULL,
    decided_by_type   TEXT NOT NULL,
    decided_by_id     TEXT NOT NULL,
    decided_by_name   TEXT NOT NULL,
    decided_at        INTEGER,
    comment           TEXT NOT NULL,
    CHECK ((status = 'PENDING') = (decided_at IS NULL))
) STRICT;
CREATE UNIQUE INDEX approvals_pending_batch ON approvals (batch_id) WHERE status = 'PENDING';
CREATE INDEX approvals_organisation ON approvals (organisation_id, requested_at, id);
CREATE INDEX approvals_organisation_status ON approvals (organisation_id, status, requested_at, id);

-- +goose Down
DROP TABLE approvals;
ALTER TABLE batches DROP COLUMN approval_id;
ALTER TABLE organisations DROP COLUMN approval_threshold;
