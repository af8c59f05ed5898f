-- The same column and index as PostgreSQL's 00007, so that one query
-- serves both: an external id is unique among an organisation's payments
-- that are not deleted, and the index refuses a taken one. The column is
-- virtual here, computed when read.

-- +goose Up
ALTER TABLE payments ADD COLUMN deleted INTEGER GENERATED ALWAYS AS (status = 'DELETED') VIRTUAL;
DROP INDEX payments_external_id;
CREATE UNIQUE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND NOT deleted;

-- +goose Down
DROP INDEX payments_external_id;
ALTER TABLE payments DROP COLUMN deleted;
CREATE INDEX payments_external_id ON payments (organisation_id, external_id) WHERE external_id <> '';
