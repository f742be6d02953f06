-- One lock order for a subscription and what hangs off it (docs/webhook-deliveries.md, "Lock order"): the subscription
-- rows first, in id order, then its deliveries, then its incidents, then its pace. This function made a pace row, whose
-- foreign key check waits for the subscription row, while holding the pace rows it had made: a test send that held the
-- subscription and waited for the pace row deadlocked with it (40P01, issue 41).

-- As 0011's, and the subscriptions come first: their rows are held (FOR KEY SHARE, which a change of the subscription
-- does not wait for, and its deletion does) before their pace rows are made or locked. The insert's foreign key check
-- then waits for nothing; a subscription deleted meanwhile gets no pace row, and no slot.
CREATE OR REPLACE FUNCTION lock_webhook_pacing(p_webhook_ids text[]) RETURNS void LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM 1 FROM webhooks WHERE id = ANY (p_webhook_ids) ORDER BY id FOR KEY SHARE;
  INSERT INTO webhook_pacing (webhook_id)
  SELECT id FROM webhooks WHERE id = ANY (p_webhook_ids) ORDER BY id
  ON CONFLICT (webhook_id) DO NOTHING;
  PERFORM 1 FROM webhook_pacing WHERE webhook_id = ANY (p_webhook_ids) ORDER BY webhook_id FOR UPDATE;
END
$$;
COMMENT ON FUNCTION lock_webhook_pacing(text[]) IS
  'Holds these subscriptions, then makes their pace rows when missing and locks them, each in id order (the lock order of docs/webhook-deliveries.md).';
