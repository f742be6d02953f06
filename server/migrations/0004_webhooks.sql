-- Webhook subscriptions, their deliveries and every attempt.

CREATE TABLE webhooks (
  id                          text PRIMARY KEY CHECK (id ~ '^wh_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id                text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  url                         text NOT NULL,
  events                      text[] NOT NULL,
  description                 text,
  enabled                     boolean NOT NULL DEFAULT true,
  disabled_reason             text CHECK (disabled_reason IN ('manual', 'endpoint_gone', 'failing')),
  -- The signing secret is needed in clear to sign; it never leaves the service except on creation and rotation.
  secret                      text NOT NULL,
  previous_secret             text,
  previous_secret_expires_at  timestamptz,
  secret_rotated_at           timestamptz,
  -- Since when every delivery has failed; a subscription failing for 5 days straight is disabled.
  failing_since               timestamptz,
  created_at                  timestamptz NOT NULL DEFAULT now(),
  updated_at                  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_page ON webhooks (workspace_id, id DESC);

-- One event for one subscription. The body is fixed when the delivery is made, so every attempt signs the same
-- bytes; test sends and redeliveries are deliveries too.
CREATE TABLE deliveries (
  id              text PRIMARY KEY CHECK (id ~ '^dlv_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  webhook_id      text NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id        text NOT NULL,
  event_type      text NOT NULL,
  payload         text NOT NULL,
  status          text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count   integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  -- Set when a worker starts an attempt: past it, the worker died mid-attempt and the delivery is enqueued again.
  leased_until    timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deliveries_page ON deliveries (webhook_id, id DESC);
CREATE INDEX deliveries_leased ON deliveries (leased_until) WHERE status = 'pending' AND leased_until IS NOT NULL;

CREATE TABLE delivery_attempts (
  delivery_id     text NOT NULL REFERENCES deliveries (id) ON DELETE CASCADE,
  attempt         integer NOT NULL,
  started_at      timestamptz NOT NULL,
  duration_ms     integer NOT NULL,
  response_status integer,
  response_body   text,
  error           text,
  PRIMARY KEY (delivery_id, attempt)
);
