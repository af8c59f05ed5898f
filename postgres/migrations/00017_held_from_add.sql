-- A submit of a million payments spent most of its database time making
-- new index entries: a payment to a non-member went from DRAFT to PENDING,
-- which changed its held flag (in the predicates of the registration and
-- reversal indexes) and set its reversal_due_at (the key of the reversal
-- index), and a change to any indexed column makes PostgreSQL write the
-- row's new version into every index of the table, the primary key
-- included, instead of updating it in place (a heap-only tuple). Now:
--   * held is true from the add on for a payment to a payee who was not a
--     member then (is_member, set at add), so a submit that holds the leg
--     leaves the flag as it was. A DRAFT leg is held but not pending:
--     every query that takes held legs also asks for status 'PENDING'.
--   * the reversal date is the batch's (all of a batch's payments fall due
--     together, at submit plus the organisation's reversal period):
--     ClaimDueLegs finds the due OPEN batches by batches.reversal_due_at,
--     then their held legs in seq order by payments_held_batch. The
--     payment keeps its own reversal_due_at, for the API, in no index.
-- One set-based UPDATE of a million payments, as a submit changes them,
-- took 10.4 to 15.5 s before, 5.2 to 5.6 s after (docs/benchmarks.md). The ADD
-- COLUMN rewrites the payments table under an exclusive lock
-- (docs/operations.md, "Migrations").
-- referral_held stays as it was: no column says whether the referral
-- payee was a member at add.

-- +goose Up
ALTER TABLE batches ADD COLUMN reversal_due_at bigint;
UPDATE batches b SET reversal_due_at = d.due
    FROM (SELECT batch_id, MIN(reversal_due_at) AS due FROM payments
          WHERE reversal_due_at IS NOT NULL GROUP BY batch_id) d
    WHERE b.id = d.batch_id;
CREATE INDEX batches_reversal_due ON batches (reversal_due_at, id) WHERE status = 'OPEN';
-- Dropping the column drops payments_held_msisdn and payments_held_due.
ALTER TABLE payments DROP COLUMN held;
ALTER TABLE payments ADD COLUMN held boolean
    GENERATED ALWAYS AS (status = 'PENDING' OR (status = 'DRAFT' AND NOT is_member)) STORED;
CREATE INDEX payments_held_msisdn ON payments (msisdn) WHERE held;
CREATE INDEX payments_held_batch ON payments (batch_id, seq) WHERE held OR referral_held;

-- +goose Down
DROP INDEX payments_held_batch;
ALTER TABLE payments DROP COLUMN held;
ALTER TABLE payments ADD COLUMN held boolean GENERATED ALWAYS AS (status = 'PENDING') STORED;
CREATE INDEX payments_held_msisdn ON payments (msisdn) WHERE held;
CREATE INDEX payments_held_due ON payments (reversal_due_at, seq) WHERE held OR referral_held;
DROP INDEX batches_reversal_due;
ALTER TABLE batches DROP COLUMN reversal_due_at;
