-- Workspaces: where leads, conversations, tickets, API keys and webhooks live.
CREATE TABLE workspaces (
  id          text PRIMARY KEY CHECK (id ~ '^ws_[0-9A-HJKMNP-TV-Z]{26}$'),
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  created_at  timestamptz NOT NULL DEFAULT now()
);
