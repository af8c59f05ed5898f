-- The deleted flag of PostgreSQL's 00007, so that one query serves both
-- (ExternalIDsInUse), but not its unique index. SQLite updates an index
-- whenever an UPDATE sets a column its predicate depends on, and every
-- submit sets the status of every payment: a unique index over the
-- payments that are not deleted cost a submit of 100,000 a third of a
-- second. Here InsertPayments looks the external ids up before it
-- inserts instead (sqlstore.UniqueExternalIDs), which the one writer
-- makes safe. The column is virtual, computed when read.

-- +goose Up
ALTER TABLE payments ADD COLUMN deleted INTEGER GENERATED ALWAYS AS (status = 'DELETED') VIRTUAL;

-- +goose Down
ALTER TABLE payments DROP COLUMN deleted;
