-- A submit writes one transfer per leg, a million and more in one
-- transaction, and every foreign key and index of transfers costs each of
-- them. PostgreSQL checks a foreign key row by row, with a locking lookup
-- of the row referenced: the three of transfers took a third of a
-- 100,000-payment submit (docs/benchmarks.md). Every transfer is written
-- by the use cases with accounts and a payment they have just read or
-- locked in the same transaction, and the ledger audit reports a transfer
-- that names a missing account or payment (docs/ledger.md), so the keys
-- go. So do the two indexes no query reads: by paying account (the audit
-- scans every transfer) and by payment (likewise).

-- +goose Up
ALTER TABLE transfers
    DROP CONSTRAINT transfers_from_account_id_fkey,
    DROP CONSTRAINT transfers_to_account_id_fkey,
    DROP CONSTRAINT transfers_payment_id_fkey;
DROP INDEX transfers_from_account;
DROP INDEX transfers_payment;

-- +goose Down
CREATE INDEX transfers_payment ON transfers (payment_id, leg) WHERE payment_id IS NOT NULL;
CREATE INDEX transfers_from_account ON transfers (from_account_id);
ALTER TABLE transfers
    ADD FOREIGN KEY (from_account_id) REFERENCES accounts (id),
    ADD FOREIGN KEY (to_account_id) REFERENCES accounts (id),
    ADD FOREIGN KEY (payment_id) REFERENCES payments (id);
