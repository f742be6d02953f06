-- The sequencer's pass plans its one statement from the outbox's statistics, which count the rows that passes have
-- already deleted until a vacuum: the estimate passes `jit_above_cost`, and PostgreSQL then compiles the statement
-- (about 500 ms) to move 100 rows in 1 ms. A pass is a small OLTP statement whatever the estimate says.
ALTER FUNCTION sequence_events(integer) SET jit = off;
