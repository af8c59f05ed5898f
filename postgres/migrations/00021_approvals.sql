-- Four-eyes approval of a submit (docs/api.md section 4.3). An
-- organisation's approval threshold, NULL while approval is off; a batch
-- whose submit waits for an approval holds its id, and stays DRAFT while
-- it does; the approvals themselves, one PENDING at most per batch. An
-- approval names its requester and decider as the audit log names actors.
-- The new columns are NULL and have no default, so neither table is
-- rewritten; the batches' check reads every row once.

-- +goose Up
ALTER TABLE organisations ADD COLUMN approval_threshold bigint CHECK (approval_threshold >= 0);
ALTER TABLE batches ADD COLUMN approval_id uuid,
    ADD CONSTRAINT batches_approval_draft CHECK (approval_id IS NULL OR status = 'DRAFT');
CREATE TABLE approvals (
    id                uuid PRIMARY KEY,
    organisation_id   uuid NOT NULL REFERENCES organisations (id),
    batch_id          uuid NOT NULL REFERENCES batches (id),
    status            text NOT NULL CHECK (status IN ('PENDING', 'APPROVED', 'REJECTED', 'CANCELLED')),
    requested_by_type text NOT NULL,
    requested_by_id   text NOT NULL,
    requested_by_name text NOT NULL,
    requested_at      bigint NOT NULL,
    payments_count    bigint NOT NULL,
    payments_amount   bigint NOT NULL,
    referrals_amount  bigint NOT NULL,
    decided_by_type   text NOT NULL,
    decided_by_id     text NOT NULL,
    decided_by_name   text NOT NULL,
    decided_at        bigint,
    comment           text NOT NULL,
    CHECK ((status = 'PENDING') = (decided_at IS NULL))
);
CREATE UNIQUE INDEX approvals_pending_batch ON approvals (batch_id) WHERE status = 'PENDING';
CREATE INDEX approvals_organisation ON approvals (organisation_id, requested_at, id);
CREATE INDEX approvals_organisation_status ON approvals (organisation_id, status, requested_at, id);

-- +goose Down
DROP TABLE approvals;
ALTER TABLE batches DROP CONSTRAINT batches_approval_draft, DROP COLUMN approval_id;
ALTER TABLE organisations DROP COLUMN approval_threshold;
