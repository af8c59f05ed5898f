-- Submit rewrites every payment of its batch (new status, times) and
-- adds a transfer per leg; at a million payments each index entry counts.
--
-- payments: seq was the primary key and id a second unique index, two
-- unique b-trees written for every payment added and again for every
-- state change (an UPDATE that changes an indexed column, as status is in
-- the partial indexes' predicates, writes a new entry in every index).
-- Nothing looks a payment up by seq alone: pages and lists go through
-- (batch_id, seq). So id becomes the primary key and seq keeps its
-- identity without an index of its own.
--
-- transfers: the index by receiving account serves members' statements
-- only, which read transfers into wallets (PAY and SETTLE); the other
-- kinds (HOLD, REVERSE, CANCEL into organisation accounts, DEPOSIT) no
-- longer enter it, half of a submit's transfers.

-- +goose Up
ALTER TABLE payments DROP CONSTRAINT payments_pkey;
ALTER TABLE payments DROP CONSTRAINT payments_id_key;
ALTER TABLE payments ADD PRIMARY KEY (id);
DROP INDEX transfers_to_account;
CREATE INDEX transfers_to_wallet ON transfers (to_account_id) WHERE kind IN ('PAY', 'SETTLE');

-- +goose Down
DROP INDEX transfers_to_wallet;
CREATE INDEX transfers_to_account ON transfers (to_account_id);
ALTER TABLE payments DROP CONSTRAINT payments_pkey;
ALTER TABLE payments ADD CONSTRAINT payments_id_key UNIQUE (id);
ALTER TABLE payments ADD PRIMARY KEY (seq);
