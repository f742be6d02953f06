-- Conversations and tickets get the customer's own fields, as leads have had from the start (issue 43): the same
-- jsonb object, `{}` when none. A constant default adds the column without rewriting or scanning the table.
ALTER TABLE conversations ADD COLUMN custom_attributes jsonb NOT NULL DEFAULT '{}';
ALTER TABLE tickets ADD COLUMN custom_attributes jsonb NOT NULL DEFAULT '{}';
