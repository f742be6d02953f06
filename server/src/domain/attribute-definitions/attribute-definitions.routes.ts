/** HTTP handlers of `/v1/attribute-definitions`. Reads use the pool; writes run through `write` (one transaction). */
import type pg from "pg";
import type { OperationHandlers } from "../../http/handler-types.ts";
import { recordEvent } from "../events/events.service.ts";
import { type WriteDeps, write } from "../idempotency/write-handler.ts";
import { ifMatch } from "../preconditions.ts";
import * as definitions from "./attribute-definitions.service.ts";

export function attributeHandlers(deps: WriteDeps & { pool: pg.Pool }): OperationHandlers {
  const { pool } = deps;
  // Each change of a definition is an event of the change stream, so a mirror learns the schema.
  const record = recordEvent;
  return {
    AttributeDefinitions_list: async ({ principal, query }) => ({
      status: 200,
      body: await definitions.listDefinitions(pool, principal.workspaceId, query),
    }),
    AttributeDefinitions_get: async ({ principal, params }) => ({
      status: 200,
      body: await definitions.getDefinition(pool, principal.workspaceId, params.attribute_definition_id),
    }),
    AttributeDefinitions_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await definitions.createDefinition(db, principal.workspaceId, body, record),
    })),
    AttributeDefinitions_update: write(deps, async ({ principal, params, body, request }, db) => ({
      status: 200,
      body: await definitions.updateDefinition(
        db,
        principal.workspaceId,
        params.attribute_definition_id,
        body,
        record,
        ifMatch(request.header("if-match")),
      ),
    })),
    AttributeDefinitions_archive: write(deps, async ({ principal, params }, db) => ({
      status: 200,
      body: await definitions.archiveDefinition(db, principal.workspaceId, params.attribute_definition_id, record),
    })),
    // The console's page: the session's workspace, in the mode its switch chose (http/authenticate.ts).
    WorkspaceAttributeDefinitions_list: async ({ principal, query }) => ({
      status: 200,
      body: await definitions.listDefinitions(pool, principal.workspaceId, query),
    }),
    WorkspaceAttributeDefinitions_create: write(deps, async ({ principal, body }, db) => ({
      status: 201,
      body: await definitions.createDefinition(db, principal.workspaceId, body, record),
    })),
    WorkspaceAttributeDefinitions_archive: write(deps, async ({ principal, params }, db) => ({
      status: 200,
      body: await definitions.archiveDefinition(db, principal.workspaceId, params.attribute_definition_id, record),
    })),
  };
}
