-- Accounts, sessions, e-mail tokens, invites, API keys, the e-mail outbox and rate-limit counters.

-- A user exists once an address is verified. Until then a registration is pending: each attempt keeps its own
-- password hash, and the verification link of an attempt sets that attempt's password, so that someone who
-- registers another person's address first cannot choose the password that person's click activates.
CREATE TABLE pending_registrations (
  id               bigserial PRIMARY KEY,
  email            text NOT NULL,
  name             text,
  password_hash    text NOT NULL,
  invite_code_hash bytea,
  created_at       timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX pending_registrations_email ON pending_registrations (email, id DESC);

CREATE TABLE users (
  id                text PRIMARY KEY CHECK (id ~ '^usr_[0-9A-HJKMNP-TV-Z]{26}$'),
  email             text NOT NULL UNIQUE,
  name              text,
  -- Null for an owner created by the admin CLI: they set a password through "forgot".
  password_hash     text,
  email_verified_at timestamptz NOT NULL DEFAULT now(),
  workspace_id      text NOT NULL REFERENCES workspaces (id),
  created_at        timestamptz NOT NULL DEFAULT now(),
  updated_at        timestamptz NOT NULL DEFAULT now()
);

-- Single-use tokens from e-mail links, stored as SHA-256 hashes (the token itself is 256 random bits).
CREATE TABLE email_tokens (
  token_hash      bytea PRIMARY KEY,
  purpose         text NOT NULL CHECK (purpose IN ('verify', 'reset')),
  registration_id bigint REFERENCES pending_registrations (id) ON DELETE CASCADE,
  user_id         text REFERENCES users (id) ON DELETE CASCADE,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  CHECK ((purpose = 'verify') = (registration_id IS NOT NULL)),
  CHECK ((purpose = 'reset') = (user_id IS NOT NULL))
);

CREATE TABLE sessions (
  token_hash bytea PRIMARY KEY,
  user_id    text NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX sessions_user ON sessions (user_id);

-- Closed-beta invitations, each for one address.
CREATE TABLE invites (
  code_hash  bytea PRIMARY KEY,
  email      text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at    timestamptz,
  used_by    text REFERENCES users (id)
);

CREATE TABLE api_keys (
  id           text PRIMARY KEY CHECK (id ~ '^key_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  name         text NOT NULL,
  prefix       text NOT NULL,
  secret_hash  bytea NOT NULL UNIQUE,
  scopes       text[] NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at   timestamptz,
  revoked_at   timestamptz,
  rotated_from text REFERENCES api_keys (id)
);
CREATE INDEX api_keys_workspace ON api_keys (workspace_id, id DESC);

-- Without SMTP_URL, e-mails land here (and in the log).
CREATE TABLE outbox (
  id         bigserial PRIMARY KEY,
  to_address text NOT NULL,
  kind       text NOT NULL,
  subject    text NOT NULL,
  text_body  text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX outbox_to ON outbox (to_address, id DESC);

-- rate-limiter-flexible's RateLimiterPostgres table (its own CREATE statement, made here so that no request
-- races to create it); `expire` is milliseconds since the epoch.
CREATE TABLE rate_limits (
  key    varchar(255) PRIMARY KEY,
  points integer NOT NULL DEFAULT 0,
  expire bigint
);
