-- The floor of registration on PostgreSQL: the least work the database
-- does to register a group of payees in the world of `disburse bench
-- --registration`, with no HTTP, no Go and one round trip a group.
--
-- This is a measuring tool, not the service: it writes what a group of
-- the bench's registrations writes (the members, their wallets, their
-- pending legs settled, one transfer a leg, the holding accounts' and the
-- wallets' balances, the batches' summaries, an audit entry each) and no
-- more. The bench's payees have no referral legs, no app (so no push
-- notification) and no webhook endpoints, so none of those is written
-- here; the service's checks, answers and batch closing are left out too.
-- It locks in the service's order (payments by seq, then accounts, then
-- batches, each sorted), so that groups run at once never deadlock.
--
-- Load it into a database the bench built, after ANALYZE, and drive it
-- with pgbench; docs/benchmarks.md ("The floor of registration") has the
-- commands and the figures.

SET client_min_messages = warning;

-- The payees not yet registered, numbered; each group takes the next ones.
DROP TABLE IF EXISTS floor_payees;
DROP SEQUENCE IF EXISTS floor_next_payee;
CREATE TABLE floor_payees AS
  SELECT row_number() OVER (ORDER BY msisdn) AS n, msisdn
  FROM (SELECT DISTINCT msisdn FROM payments
        WHERE held AND status = 'PENDING' AND msisdn NOT IN (SELECT msisdn FROM members)) AS s;
CREATE UNIQUE INDEX ON floor_payees (n);
CREATE SEQUENCE floor_next_payee;

-- floor_register registers the next k payees in one transaction and
-- returns how many it registered (0 once none are left).
CREATE OR REPLACE FUNCTION floor_register(k int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE
  payees text[];
  now_us bigint := (extract(epoch FROM clock_timestamp()) * 1e6)::bigint;
  written int;
BEGIN
  SELECT array_agg(q.msisdn ORDER BY q.msisdn) INTO payees FROM floor_payees q
    WHERE q.n IN (SELECT nextval('floor_next_payee') FROM generate_series(1, k));
  IF payees IS NULL THEN
    RETURN 0;
  END IF;
  INSERT INTO members (msisdn, firstname, lastname, app_installed, registered_at)
    SELECT x, '', '', false, now_us FROM unnest(payees) AS x;
  INSERT INTO accounts (id, kind, name, currency, balance, is_default, msisdn, created_at)
    SELECT gen_random_uuid(), 'WALLET', x, 'KES', 0, false, x, now_us FROM unnest(payees) AS x ORDER BY x
    ON CONFLICT DO NOTHING;
  PERFORM 1 FROM payments p WHERE p.msisdn = ANY(payees) AND p.held AND p.status = 'PENDING'
    ORDER BY p.seq FOR NO KEY UPDATE;
  PERFORM 1 FROM accounts WHERE id IN (
      SELECT o.holding_account_id FROM payments p JOIN organisations o ON o.id = p.organisation_id
      WHERE p.msisdn = ANY(payees) AND p.held AND p.status = 'PENDING')
    ORDER BY id FOR NO KEY UPDATE;
  PERFORM 1 FROM batches WHERE id IN (
      SELECT p.batch_id FROM payments p WHERE p.msisdn = ANY(payees) AND p.held AND p.status = 'PENDING')
    ORDER BY id FOR NO KEY UPDATE;
  WITH legs AS (
    SELECT p.id, p.amount, p.batch_id, p.organisation_id, p.msisdn FROM payments p
    WHERE p.msisdn = ANY(payees) AND p.held AND p.status = 'PENDING'),
  settled AS (
    UPDATE payments SET status = 'SETTLED', settled_at = now_us FROM legs WHERE payments.id = legs.id
    RETURNING legs.id, legs.amount, legs.batch_id, legs.organisation_id, legs.msisdn),
  moved AS (
    INSERT INTO transfers (id, from_account_id, to_account_id, amount, kind, payment_id, leg, reference, created_at)
    SELECT gen_random_uuid(), o.holding_account_id, w.id, s.amount, 'SETTLE', s.id, 'PAYMENT', '', now_us
    FROM settled s JOIN organisations o ON o.id = s.organisation_id
    JOIN accounts w ON w.kind = 'WALLET' AND w.msisdn = s.msisdn AND w.currency = 'KES'
    RETURNING from_account_id, to_account_id, amount),
  balances AS (
    UPDATE accounts a SET balance = a.balance + d.delta
    FROM (SELECT id, sum(delta) AS delta FROM (
            SELECT from_account_id AS id, -amount AS delta FROM moved
            UNION ALL SELECT to_account_id, amount FROM moved) AS x
          GROUP BY id) AS d
    WHERE a.id = d.id RETURNING 1),
  summaries AS (
    UPDATE batches b SET pending_count = b.pending_count - s.n, pending_amount = b.pending_amount - s.amount,
      settled_count = b.settled_count + s.n, settled_amount = b.settled_amount + s.amount,
      held_amount = b.held_amount - s.amount
    FROM (SELECT batch_id, count(*) AS n, sum(amount) AS amount FROM settled GROUP BY batch_id) AS s
    WHERE b.id = s.batch_id RETURNING 1)
  SELECT (SELECT count(*) FROM balances) + (SELECT count(*) FROM summaries) INTO written;
  INSERT INTO audit_log (id, at, actor, action, organisation_id, subject, before, after)
    SELECT gen_random_uuid(), now_us, 'operator API', 'member.register', NULL, x, '', '{}' FROM unnest(payees) AS x;
  RETURN array_length(payees, 1);
END $$;
