-- The delivery workers claim the due notifications and webhook deliveries
-- in (next_attempt_at, id) order, five hundred at a time. With
-- next_attempt_at alone in the index, each claim read and sorted every
-- due row to find its first five hundred, and a submit's notifications all
-- fall due together: draining a submit's outbox took longer the bigger
-- the outbox, each claim reading all the rows still due. With id in the
-- index a claim reads the rows it takes (as 00006 did for the reversal
-- sweep's legs).

-- +goose Up
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'PENDING';

-- +goose Down
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'PENDING';
