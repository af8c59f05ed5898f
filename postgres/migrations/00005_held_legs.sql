-- Submit updates every payment of its batch, and an UPDATE that changes a
-- column any index names (in its key or in a partial index's predicate)
-- writes a new entry in every index of the table. status was in the
-- predicates of four indexes, so each of a million payments got new
-- entries in all of them. Now:
--   * held and referral_held say whether a leg is PENDING, generated from
--     the statuses, and the indexes for registration and reversal name
--     them instead: a member's payment (SETTLED at submit) changes neither,
--   * the external id index no longer names status (ExternalIDsInUse
--     filters out deleted payments at the row),
--   * half of each page is left free, so that the new version of a
--     payment row fits beside the old and PostgreSQL updates it in place,
--     without touching an index (a heap-only tuple).
-- Updating a million payments as a submit does: 13.6 s before, 10.1 s
-- after (docs/benchmarks.md).

-- +goose Up
ALTER TABLE payments SET (fillfactor = 50);
ALTER TABLE payments
    ADD COLUMN held boolean GENERATED ALWAYS AS (status = 'PENDING') STORED,
    ADD COLUMN referral_held boolean GENERATED ALWAYS AS (referral_status = 'PENDING') STORED;
DROP INDEX payments_pending_msisdn;
DROP INDEX payments_pending_referral;
DROP INDEX payments_due;
DROP INDEX payments_external_id;
-- LockPendingLegsTo: the legs waiting for an msisdn to register.
CREATE INDEX payments_held_msisdn ON payments (msisdn) WHERE held;
CREATE INDEX payments_held_referral ON payments (referral_msisdn) WHERE referral_held;
-- ClaimDueLegs: the legs due for reversal.
CREATE INDEX payments_held_due ON payments (reversal_due_at) WHERE held OR referral_held;
-- ExternalIDsInUse.
CREATE INDEX payments_external_id ON payments (organisation_id, external_id) WHERE external_id <> '';

-- +goose Down
DROP INDEX payments_external_id;
DROP INDEX payments_held_due;
DROP INDEX payments_held_referral;
DROP INDEX payments_held_msisdn;
ALTER TABLE payments DROP COLUMN held, DROP COLUMN referral_held;
ALTER TABLE payments RESET (fillfactor);
CREATE INDEX payments_pending_msisdn ON payments (msisdn) WHERE status = 'PENDING';
CREATE INDEX payments_pending_referral ON payments (referral_msisdn) WHERE referral_status = 'PENDING';
CREATE INDEX payments_due ON payments (reversal_due_at)
    WHERE status = 'PENDING' OR referral_status = 'PENDING';
CREATE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND status <> 'DELETED';
