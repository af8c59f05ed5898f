-- The worker deletes expired tokens (Service.PurgeTokens): every getToken
-- adds a row, and without a sweep the table grows for ever. The index lets
-- the sweep find the expired ones without reading the live ones.

-- +goose Up
CREATE INDEX tokens_expires ON tokens (expires_at);

-- +goose Down
DROP INDEX tokens_expires;
