-- The /v1 resources, their events, and idempotency keys. Every row belongs to a workspace; every query filters on
-- it, so one workspace never sees another's rows. Ids are ULID-based: ordering by id is ordering by creation.

CREATE TABLE leads (
  id                text PRIMARY KEY CHECK (id ~ '^lead_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id      text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  email             text,
  phone             text,
  name              text,
  company           text,
  status            text NOT NULL CHECK (status IN ('new', 'contacted', 'qualified', 'disqualified', 'converted')),
  source            text,
  tags              text[] NOT NULL DEFAULT '{}',
  custom_attributes jsonb NOT NULL DEFAULT '{}',
  external_id       text,
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX leads_page ON leads (workspace_id, id DESC);
CREATE INDEX leads_status ON leads (workspace_id, status, id DESC);
CREATE INDEX leads_email ON leads (workspace_id, lower(email));
CREATE UNIQUE INDEX leads_external_id ON leads (workspace_id, external_id) WHERE external_id IS NOT NULL;

CREATE TABLE conversations (
  id              text PRIMARY KEY CHECK (id ~ '^conv_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  lead_id         text REFERENCES leads (id) ON DELETE SET NULL,
  subject         text,
  channel         text NOT NULL CHECK (channel IN ('email', 'chat', 'phone', 'api', 'other')),
  state           text NOT NULL CHECK (state IN ('open', 'snoozed', 'closed')),
  snoozed_until   timestamptz,
  assignee        text,
  priority        text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  last_message_at timestamptz,
  message_count   integer NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((state = 'snoozed') = (snoozed_until IS NOT NULL))
);
CREATE INDEX conversations_page ON conversations (workspace_id, id DESC);
CREATE INDEX conversations_lead ON conversations (workspace_id, lead_id, id DESC);

CREATE TABLE messages (
  id              text PRIMARY KEY CHECK (id ~ '^msg_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
  author_type     text NOT NULL CHECK (author_type IN ('lead', 'agent', 'system')),
  author_id       text,
  body            text NOT NULL,
  visibility      text NOT NULL CHECK (visibility IN ('public', 'internal')),
  created_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX messages_page ON messages (conversation_id, id DESC);

-- Ticket numbers: one counter row per workspace, incremented in the transaction that inserts the ticket. The row
-- lock serialises concurrent creations and a rollback returns the number, so numbers have no gaps.
CREATE TABLE ticket_counters (
  workspace_id text PRIMARY KEY REFERENCES workspaces (id) ON DELETE CASCADE,
  last_number  integer NOT NULL
);

CREATE TABLE tickets (
  id              text PRIMARY KEY CHECK (id ~ '^tkt_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  number          integer NOT NULL,
  subject         text NOT NULL,
  description     text,
  status          text NOT NULL CHECK (status IN ('new', 'open', 'pending', 'on_hold', 'solved', 'closed')),
  priority        text NOT NULL CHECK (priority IN ('low', 'normal', 'high', 'urgent')),
  lead_id         text REFERENCES leads (id) ON DELETE SET NULL,
  conversation_id text REFERENCES conversations (id) ON DELETE SET NULL,
  assignee        text,
  tags            text[] NOT NULL DEFAULT '{}',
  due_at          timestamptz,
  solved_at       timestamptz,
  closed_at       timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  UNIQUE (workspace_id, number)
);
CREATE INDEX tickets_page ON tickets (workspace_id, id DESC);
CREATE INDEX tickets_status ON tickets (workspace_id, status, id DESC);

-- The record of what happened, written in the transaction of the change it describes.
CREATE TABLE events (
  id           text PRIMARY KEY CHECK (id ~ '^evt_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  type         text NOT NULL,
  data         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX events_page ON events (workspace_id, id DESC);
CREATE INDEX events_type ON events (workspace_id, type, id DESC);

-- Idempotency keys, written in the transaction of the write they answer: a key never exists without its effect,
-- nor an effect without its key. Kept 24 hours.
CREATE TABLE idempotency_keys (
  workspace_id    text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  key             text NOT NULL,
  fingerprint     bytea NOT NULL,
  response_status integer NOT NULL,
  response_body   jsonb,
  created_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (workspace_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
