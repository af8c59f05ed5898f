-- The management portal's views on large tables, and the progress of a
-- CSV upload.
--
-- transfers_payment: a payment's page lists the transfers of its legs.
-- notifications_done pages the outbox's sent and failed notifications
-- newest first (by id, which is time-ordered) from a cursor, by status and
-- channel, so a page costs the same on an outbox of millions as on one of
-- ten (sqlstore NotificationsPage says how each filter is read). It leaves
-- out the pending ones, so that a submit, which writes every notification
-- pending, pays nothing for it: a notification enters it when it is sent
-- or given up, one row at a time in the delivery worker. The pending ones
-- are listed in the order they fall due, by notifications_due, which now
-- ends in the id: the page pages through it by (next_attempt_at, id), and
-- the worker's claim, ordered the same way, no longer sorts the many
-- notifications of one submit, which are all due at once.
--
-- portal_uploads: how far the server has read an upload, so a page polls
-- it on whichever replica answers. Rows are purged a day after their last
-- change.

-- +goose Up
CREATE INDEX transfers_payment ON transfers (payment_id);

CREATE INDEX notifications_done ON notifications (status, channel, id) WHERE status <> 'PENDING';
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at, id) WHERE status = 'PENDING';

CREATE TABLE portal_uploads (
    id              uuid PRIMARY KEY,
    organisation_id uuid NOT NULL REFERENCES organisations (id),
    batch_id        uuid NOT NULL REFERENCES batches (id),
    phase           text NOT NULL CHECK (phase IN ('RECEIVING', 'CHECKING', 'ADDING', 'DONE')),
    done            bigint NOT NULL CHECK (done >= 0),
    total           bigint NOT NULL CHECK (total >= 0),
    rows_read       bigint NOT NULL CHECK (rows_read >= 0),
    created_at      bigint NOT NULL,
    updated_at      bigint NOT NULL
);
CREATE INDEX portal_uploads_updated ON portal_uploads (updated_at);

-- +goose Down
DROP TABLE portal_uploads;
DROP INDEX notifications_due;
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE status = 'PENDING';
DROP INDEX notifications_done;
DROP INDEX transfers_payment;
