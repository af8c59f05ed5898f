-- The management portal's views on large tables, and the progress of a
-- CSV upload.
--
-- transfers_payment: a payment's page lists the transfers of its legs.
-- The notifications indexes page the outbox newest first (by id, which is
-- time-ordered) from a cursor, filtered by recipient, status or channel,
-- so the page costs the same on an outbox of millions as on one of ten
-- (sqlstore NotificationsPage says how each filter uses them). The
-- recipient index replaces the one by (recipient, created_at): a submit
-- gives all its notifications one created_at, so only the id orders them.
-- Status is not the first column of an index: the delivery worker's claim
-- (status = 'PENDING', by next_attempt_at) must keep to notifications_due.
--
-- portal_uploads: how far the server has read an upload, so a page polls
-- it on whichever replica answers. Rows are purged a day after their last
-- change.

-- +goose Up
CREATE INDEX transfers_payment ON transfers (payment_id);

DROP INDEX notifications_recipient;
CREATE INDEX notifications_recipient ON notifications (recipient, id);
CREATE INDEX notifications_channel ON notifications (channel, status, id);

CREATE TABLE portal_uploads (
    id              TEXT PRIMARY KEY,
    organisation_id TEXT NOT NULL REFERENCES organisations (id),
    batch_id        TEXT NOT NULL REFERENCES batches (id),
    phase           TEXT NOT NULL CHECK (phase IN ('RECEIVING', 'CHECKING', 'ADDING', 'DONE')),
    done            INTEGER NOT NULL CHECK (done >= 0),
    total           INTEGER NOT NULL CHECK (total >= 0),
    rows_read       INTEGER NOT NULL CHECK (rows_read >= 0),
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX portal_uploads_updated ON portal_uploads (updated_at);

-- +goose Down
DROP TABLE portal_uploads;
DROP INDEX notifications_channel;
DROP INDEX notifications_recipient;
CREATE INDEX notifications_recipient ON notifications (recipient, created_at);
DROP INDEX transfers_payment;
