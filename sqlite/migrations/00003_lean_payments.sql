-- The index by receiving account serves members' statements only, which
-- read transfers into wallets (PAY and SETTLE); the other kinds (HOLD,
-- REVERSE, CANCEL into organisation accounts, DEPOSIT) no longer enter
-- it, half of a submit's transfers. (PostgreSQL's 00003 also makes id
-- the payments' primary key; here seq is the rowid and costs nothing.)

-- +goose Up
DROP INDEX transfers_to_account;
CREATE INDEX transfers_to_wallet ON transfers (to_account_id) WHERE kind IN ('PAY', 'SETTLE');

-- +goose Down
DROP INDEX transfers_to_wallet;
CREATE INDEX transfers_to_account ON transfers (to_account_id);
