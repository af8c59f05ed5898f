-- Adding payments writes a million rows to one batch, and PostgreSQL
-- checks a foreign key row by row, with a locking lookup of the row
-- referenced: the two of payments (to its batch and its organisation)
-- took half the time of inserting a million payment rows (7.3 s without
-- them, 14.1 s with, docs/benchmarks.md). AddPayments inserts payments
-- only into a batch it has just locked, of the organisation it read, in
-- the same transaction, and the ledger audit reports a payment whose
-- batch is missing or belongs to another organisation (docs/ledger.md),
-- as it does for transfers since 00002. Batches are never deleted.

-- +goose Up
ALTER TABLE payments
    DROP CONSTRAINT payments_batch_id_fkey,
    DROP CONSTRAINT payments_organisation_id_fkey;

-- +goose Down
ALTER TABLE payments
    ADD FOREIGN KEY (batch_id) REFERENCES batches (id),
    ADD FOREIGN KEY (organisation_id) REFERENCES organisations (id);
