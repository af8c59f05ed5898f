-- The same columns and indexes as PostgreSQL's 00005, so that one set of
-- queries serves both: held and referral_held say whether a leg is
-- PENDING, and the indexes for registration and reversal name them rather
-- than the statuses, which every submit changes. SQLite rewrites a row in
-- place either way; the columns are virtual here, computed when read.

-- +goose Up
ALTER TABLE payments ADD COLUMN held INTEGER GENERATED ALWAYS AS (status = 'PENDING') VIRTUAL;
ALTER TABLE payments ADD COLUMN referral_held INTEGER GENERATED ALWAYS AS (referral_status = 'PENDING') VIRTUAL;
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
ALTER TABLE payments DROP COLUMN referral_held;
ALTER TABLE payments DROP COLUMN held;
CREATE INDEX payments_pending_msisdn ON payments (msisdn) WHERE status = 'PENDING';
CREATE INDEX payments_pending_referral ON payments (referral_msisdn) WHERE referral_status = 'PENDING';
CREATE INDEX payments_due ON payments (reversal_due_at)
    WHERE status = 'PENDING' OR referral_status = 'PENDING';
CREATE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND status <> 'DELETED';
