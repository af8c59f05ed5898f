-- The delivery workers claim the due notifications and webhook deliveries
-- in (next_attempt_at, id) order, five hundred at a time. With
-- next_attempt_at alone in the index, each claim read and sorted every
-- due row to find its first five hundred, and a submit's notifications all
-- fall due together: draining a submit's outbox took longer the bigger
-- the outbox, each claim reading all the rows still due. With id in the
-- index a claim reads the rows it takes (as 00006 did for the reversal
-- sweep's legs).

-- The leases are released by naming their rows, not by owner, so the
-- indexes on lease_owner have nothing left to serve and only cost every
-- claim their upkeep.

-- +goose Up
DROP INDEX notifications_lease_owner;
DROP INDEX webhook_deliveries_lease_owner;
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'PENDING';

-- +goose Down
DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'PENDING';
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'PENDING';
CREATE INDEX webhook_deliveries_lease_owner ON webhook_deliveries (lease_owner) WHERE lease_owner <> '';
CREATE INDEX notifications_lease_owner ON notifications (lease_owner) WHERE lease_owner <> '';
