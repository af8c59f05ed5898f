-- An external id is unique among an organisation's payments that are not
-- deleted. Until now the unique index said so with a predicate on the
-- deleted flag, which is computed from status: every UPDATE that sets
-- status (each payment of every submit) made SQLite revisit the index,
-- about a tenth of the submit's time (docs/benchmarks.md). The id now
-- has a column of its own, held_external_id: the external id while the
-- payment holds it, NULL when it has none or was deleted. Only an add
-- and a delete write it, so the submit's UPDATE leaves the index alone,
-- and both engines enforce uniqueness with the same index. The deleted
-- flag has no other use and goes.

-- +goose Up
ALTER TABLE payments ADD COLUMN held_external_id TEXT;
UPDATE payments SET held_external_id = external_id WHERE external_id <> '' AND status <> 'DELETED';
DROP INDEX payments_external_id;
CREATE UNIQUE INDEX payments_external_id ON payments (organisation_id, held_external_id)
    WHERE held_external_id IS NOT NULL;
ALTER TABLE payments DROP COLUMN deleted;

-- +goose Down
DROP INDEX payments_external_id;
ALTER TABLE payments DROP COLUMN held_external_id;
ALTER TABLE payments ADD COLUMN deleted boolean GENERATED ALWAYS AS (status = 'DELETED') STORED;
CREATE UNIQUE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND NOT deleted;
