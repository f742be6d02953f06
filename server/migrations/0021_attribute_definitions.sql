-- Typed fields of leads, conversations and tickets (issue 43): a definition types `custom_attributes.<key>` of one kind
-- of object in one scope (a workspace's live or test mode, as every object: decision 0018). Archiving keeps the row
-- and its key; the values under the key stay in the objects.
CREATE TABLE attribute_definitions (
  id           text PRIMARY KEY CHECK (id ~ '^attr_[0-9A-HJKMNP-TV-Z]{26}$'),
  workspace_id text NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
  object_type  text NOT NULL CHECK (object_type IN ('lead', 'conversation', 'ticket')),
  key          text NOT NULL CHECK (key ~ '^[a-z][a-z0-9_]{0,63}$'),
  label        text NOT NULL,
  description  text,
  type         text NOT NULL CHECK (type IN ('string', 'number', 'boolean', 'date', 'datetime', 'enum', 'multi_enum',
                                             'email', 'url')),
  options      text[] NOT NULL DEFAULT '{}',
  required     boolean NOT NULL DEFAULT false,
  "unique"     boolean NOT NULL DEFAULT false,
  archived_at  timestamptz,
  created_at   timestamptz NOT NULL DEFAULT now(),
  updated_at   timestamptz NOT NULL DEFAULT now(),
  version      integer NOT NULL DEFAULT 1,
  UNIQUE (workspace_id, object_type, key)
);
CREATE INDEX attribute_definitions_page ON attribute_definitions (workspace_id, id DESC);

COMMENT ON TABLE attribute_definitions IS
  'Typed fields of leads, conversations and tickets: a write of custom_attributes.<key> on object_type must fit the '
  'definition''s type, options, required and unique while it is not archived.';
