-- PostgreSQL's 00017 makes a submit's payment updates heap-only: held is
-- true from the add on for a payee who was not a member then, and the
-- reversal date the claim orders by is the batch's, in batches, not an
-- indexed column of payments. SQLite has no heap-only updates (it revisits
-- an index whenever an UPDATE sets a column the index names, whatever the
-- value), so held keeps its meaning here, status = 'PENDING', and a DRAFT
-- leg would only add index entries to the add. The queries are the same on
-- both engines: every one that takes held legs also asks for status
-- 'PENDING', and the claim of due legs goes through the batch's date.

-- +goose Up
ALTER TABLE batches ADD COLUMN reversal_due_at INTEGER;
UPDATE batches SET reversal_due_at =
    (SELECT MIN(p.reversal_due_at) FROM payments p WHERE p.batch_id = batches.id);
CREATE INDEX batches_reversal_due ON batches (reversal_due_at, id) WHERE status = 'OPEN';
DROP INDEX payments_held_due;
CREATE INDEX payments_held_batch ON payments (batch_id, seq) WHERE held OR referral_held;

-- +goose Down
DROP INDEX payments_held_batch;
CREATE INDEX payments_held_due ON payments (reversal_due_at, seq) WHERE held OR referral_held;
DROP INDEX batches_reversal_due;
ALTER TABLE batches DROP COLUMN reversal_due_at;
