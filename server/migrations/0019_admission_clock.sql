-- As 0011's, with the admission's clock read once the subscriptions' pace rows are held. It was read before waiting
-- for them: an attempt that waited behind another admission was recorded as started before it really was admitted,
-- and the window (1.05 s) lost that wait from its 50 ms margin over a second; a recovery under load then showed 11
-- recorded starts in one second with a limit of 10 (issue 40's CI, 2026-11-28).
CREATE OR REPLACE FUNCTION admit_delivery_starts(p_webhook_ids text[], p_rates integer[])
RETURNS timestamptz[] LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  now_ts timestamptz;
  answers timestamptz[] := '{}';
  starts timestamptz[];
  slot timestamptz;
BEGIN
  PERFORM lock_webhook_pacing(p_webhook_ids);
  now_ts := clock_timestamp();
  FOR i IN 1 .. coalesce(array_length(p_webhook_ids, 1), 0) LOOP
    SELECT coalesce(array_agg(s ORDER BY s), '{}') INTO starts
      FROM webhook_pacing, unnest(recent_starts) AS s
     WHERE webhook_id = p_webhook_ids[i] AND s > now_ts - interval '1050 milliseconds';
    IF coalesce(array_length(starts, 1), 0) < p_rates[i] THEN
      UPDATE webhook_pacing SET recent_starts = starts || now_ts WHERE webhook_id = p_webhook_ids[i];
      answers := answers || NULL::timestamptz;
    ELSE
      UPDATE webhook_pacing
         SET recent_starts = starts,
             reserved_until = greatest(reserved_until + make_interval(secs => 1.1 / p_rates[i]),
                                       starts[array_length(starts, 1) - p_rates[i] + 1] + interval '1050 milliseconds')
       WHERE webhook_id = p_webhook_ids[i]
      RETURNING reserved_until INTO slot;
      answers := answers || slot;
    END IF;
  END LOOP;
  RETURN answers;
END
$$;
