-- Dated API versions (docs/versioning.md): an organisation's default
-- version, which a request without Disburse-Version is answered in, and
-- a webhook endpoint's, which its bodies are written in. The default is
-- the first version, the only one there was, so that every organisation
-- and endpoint keeps its answers, and a release before this one, which
-- inserts without the columns, keeps working beside this one.

-- +goose Up
ALTER TABLE organisations ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-01';
ALTER TABLE webhook_endpoints ADD COLUMN api_version text NOT NULL DEFAULT '2026-11-01';

-- +goose Down
ALTER TABLE webhook_endpoints DROP COLUMN api_version;
ALTER TABLE organisations DROP COLUMN api_version;
