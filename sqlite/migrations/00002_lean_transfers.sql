-- A submit writes one transfer per leg, a million and more in one
-- transaction, and every index of transfers costs each of them. No query
-- reads these two: the ledger audit scans every transfer, by paying
-- account and by payment alike (docs/benchmarks.md). PostgreSQL's
-- migration 00002 drops the table's foreign keys too; here they stay,
-- since SQLite checks them cheaply and dropping one means rebuilding the
-- table.

-- +goose Up
DROP INDEX transfers_from_account;
DROP INDEX transfers_payment;

-- +goose Down
CREATE INDEX transfers_payment ON transfers (payment_id, leg) WHERE payment_id IS NOT NULL;
CREATE INDEX transfers_from_account ON transfers (from_account_id);
