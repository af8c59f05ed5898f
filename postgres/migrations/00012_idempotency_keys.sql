-- An Idempotency-Key's claim and its answer (docs/idempotency.md). The
-- request's own transaction marks the row done, so the work and the key
-- commit together; the answer is written just after, sealed with a key
-- derived from the Idempotency-Key, which is itself kept only hashed.

-- +goose Up
CREATE TABLE idempotency_keys (
    scope        text    NOT NULL,  -- an organisation id, or 'operator'
    key_hash     text    NOT NULL,  -- SHA-256 of the Idempotency-Key
    fingerprint  text    NOT NULL,  -- method, path, scope and body, hashed
    owner        text    NOT NULL,  -- the request that holds the claim
    done         boolean NOT NULL DEFAULT FALSE, -- its work committed
    lease_until  bigint  NOT NULL,  -- in flight until then
    status       integer NOT NULL DEFAULT 0,     -- 0: no answer kept yet
    answer       bytea,             -- headers and body, sealed
    ref_kind     text    NOT NULL DEFAULT '',    -- an answer rebuilt from the store
    ref_id       text    NOT NULL DEFAULT '',
    created_at   bigint  NOT NULL,
    PRIMARY KEY (scope, key_hash)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- +goose Down
DROP TABLE idempotency_keys;
