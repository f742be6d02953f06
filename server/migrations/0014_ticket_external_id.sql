-- Tickets carry your own id (`external_id`, unique in the workspace), so that a help desk kept in step can create or
-- update them by it (`POST /v1/tickets/batch`) and find one (`GET /v1/tickets?external_id=`).
ALTER TABLE tickets ADD COLUMN external_id text;
CREATE UNIQUE INDEX tickets_external_id ON tickets (workspace_id, external_id) WHERE external_id IS NOT NULL;
