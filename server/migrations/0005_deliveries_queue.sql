-- The deliveries table is the delivery queue: a worker claims pending deliveries whose next_attempt_at has come and
-- whose lease is free or has run out (deliveries.store.ts claimDue), in next_attempt_at order. Before, pg-boss jobs
-- carried the same due times, and a sweep looked for run-out leases through deliveries_leased.
CREATE INDEX deliveries_due ON deliveries (next_attempt_at) WHERE status = 'pending';
DROP INDEX deliveries_leased;

COMMENT ON COLUMN deliveries.next_attempt_at IS
  'When a pending delivery is due: at once when made, then at each retry of the schedule; NULL once settled.';
COMMENT ON COLUMN deliveries.leased_until IS
  'Set when a worker claims the delivery, cleared when it records the attempt; past it, the attempt was never '
  'recorded (the worker died) and the delivery is due again.';
