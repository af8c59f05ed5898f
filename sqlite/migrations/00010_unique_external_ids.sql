-- PostgreSQL's 00007 on SQLite: an external id is unique among an
-- organisation's payments that are not deleted (contract 4.1), and the
-- index says so on both engines, so an add that collides fails in the
-- store the same way on each (ErrDuplicate, then AddPayments looks the
-- ids up to report them). Until now InsertPayments looked the ids up
-- before each insert here instead, to spare the submit: SQLite updates
-- this index for every payment whose status an UPDATE sets, since the
-- predicate's deleted flag is computed from it. docs/benchmarks.md has
-- what that costs, measured when this index came back.

-- +goose Up
DROP INDEX payments_external_id;
CREATE UNIQUE INDEX payments_external_id ON payments (organisation_id, external_id)
    WHERE external_id <> '' AND NOT deleted;

-- +goose Down
DROP INDEX payments_external_id;
CREATE INDEX payments_external_id ON payments (organisation_id, external_id) WHERE external_id <> '';
