-- SQLite's 00010 gives it the unique index of external ids that
-- PostgreSQL has had since 00007. Nothing to do here; this file keeps the
-- two engines' version numbers in step.

-- +goose Up
SELECT 1;

-- +goose Down
SELECT 1;
