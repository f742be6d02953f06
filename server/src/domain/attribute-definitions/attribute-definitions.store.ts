/** All SQL of attribute definitions, and the queries that check `custom_attributes` values against them. */
import type { components } from "@service/spec/schema";
import { findInWorkspace, listPage, type PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";
import type { AttributeType } from "./attribute-values.ts";

export type AttributeObject = components["schemas"]["AttributeObject"];

export interface DefinitionRow {
  id: string;
  /** The scope: the workspace's, or its test scope's (domain/modes.ts). */
  workspace_id: string;
  object_type: AttributeObject;
  key: string;
  label: string;
  description: string | null;
  type: AttributeType;
  options: string[];
  required: boolean;
  unique: boolean;
  archived_at: Date | null;
  created_at: Date;
  updated_at: Date;
  version: number;
}

/** The most definitions one kind of object may have in a scope, archived ones included. */
export const MAX_DEFINITIONS_PER_OBJECT = 100;

/** The table of each kind of object: only these names reach SQL text. */
const TABLES: Readonly<Record<AttributeObject, string>> = {
  lead: "leads",
  conversation: "conversations",
  ticket: "tickets",
};

const definitionNotFound = (id: string) =>
  new AppError("ATTRIBUTE_DEFINITION_NOT_FOUND", { detail: `No attribute definition ${id} in this workspace.` });

export function listDefinitionRows<Item>(
  db: Queryable,
  scope: string,
  filters: { object_type?: AttributeObject; include_archived?: boolean },
  page: PageParams,
  toItem: (row: DefinitionRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM attribute_definitions",
      kind: "attributeDefinition",
      workspaceId: scope,
      filters: [
        ["object_type = ?", filters.object_type],
        ["(?::boolean OR archived_at IS NULL)", filters.include_archived === true],
      ],
    },
    page,
    toItem,
  );
}

export function findDefinitionRow(db: Queryable, scope: string, id: string, lock = false): Promise<DefinitionRow> {
  return findInWorkspace<DefinitionRow>(db, "attribute_definitions", scope, id, () => definitionNotFound(id), {
    forUpdate: lock,
  });
}

/** The advisory lock key of one kind of object's definitions in a scope. */
const lockKey = (scope: string, objectType: AttributeObject) => `attributes:${scope}:${objectType}`;

/**
 * The definitions that check a write of one kind of object (those not archived), read under a shared lock of the
 * kind's definitions until the write's transaction ends: a definition made or changed meanwhile waits for the write,
 * then checks its value with the others (`lockDefinitionsOf`).
 *
 * Two statements: a statement sees what committed before it began, so a read in the statement that waited for the
 * lock would miss the definition whose commit released it.
 */
export async function activeDefinitionRows(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
): Promise<DefinitionRow[]> {
  await db.query({
    name: "share-attribute-definitions",
    text: "SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))",
    values: [lockKey(scope, objectType)],
  });
  const { rows } = await db.query<DefinitionRow>({
    name: "active-attribute-definitions",
    text: `SELECT * FROM attribute_definitions
            WHERE workspace_id = $1 AND object_type = $2 AND archived_at IS NULL ORDER BY id`,
    values: [scope, objectType],
  });
  return rows;
}

/**
 * Serialises the definitions of one kind of object in a scope, and the writes of its objects that check them, until
 * the transaction ends: the count against the limit, a key's uniqueness, and the check of existing values against a
 * new rule each see every other's outcome. The number of definitions the kind has, archived ones included.
 */
export async function lockDefinitionsOf(db: Queryable, scope: string, objectType: AttributeObject): Promise<number> {
  await db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [lockKey(scope, objectType)]);
  const { rows } = await db.query<{ n: number }>(
    "SELECT count(*)::int AS n FROM attribute_definitions WHERE workspace_id = $1 AND object_type = $2",
    [scope, objectType],
  );
  return rows[0]?.n ?? 0;
}

/** 409 `ATTRIBUTE_KEY_TAKEN` when the kind has a definition with this key, archived or not. */
export async function refuseTakenKey(db: Queryable, scope: string, objectType: AttributeObject, key: string) {
  const { rowCount } = await db.query(
    "SELECT 1 FROM attribute_definitions WHERE workspace_id = $1 AND object_type = $2 AND key = $3",
    [scope, objectType, key],
  );
  if (rowCount) throw keyTaken(objectType, key);
}

const keyTaken = (objectType: string, key: string) =>
  new AppError("ATTRIBUTE_KEY_TAKEN", { detail: `The ${objectType} attribute ${key} is defined already.` });

export async function insertDefinitionRow(
  db: Queryable,
  scope: string,
  values: Pick<
    DefinitionRow,
    "object_type" | "key" | "label" | "description" | "type" | "options" | "required" | "unique"
  >,
): Promise<DefinitionRow> {
  const { rows } = await db.query<DefinitionRow>(
    `INSERT INTO attribute_definitions (id, workspace_id, object_type, key, label, description, type, options,
                                        required, "unique")
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
     ON CONFLICT (workspace_id, object_type, key) DO NOTHING RETURNING *`,
    [
      newId("attributeDefinition"),
      scope,
      values.object_type,
      values.key,
      values.label,
      values.description,
      values.type,
      values.options,
      values.required,
      values.unique,
    ],
  );
  if (!rows[0]) throw keyTaken(values.object_type, values.key);
  return rows[0];
}

/** Writes the changed columns of a definition (or archives it) and returns it as stored, one version more. */
export async function updateDefinitionRow(
  db: Queryable,
  scope: string,
  id: string,
  changes: Partial<Pick<DefinitionRow, "label" | "description" | "options" | "required" | "unique">> & {
    archive?: true;
  },
): Promise<DefinitionRow> {
  const { archive, ...columns } = changes;
  const names = Object.keys(columns);
  const assignments = [
    ...names.map((name, i) => `${name === "unique" ? '"unique"' : name} = $${i + 3}`),
    ...(archive ? ["archived_at = now()"] : []),
    "updated_at = now()",
    "version = version + 1",
  ];
  const { rows } = await db.query<DefinitionRow>(
    `UPDATE attribute_definitions SET ${assignments.join(", ")} WHERE workspace_id = $1 AND id = $2 RETURNING *`,
    [scope, id, ...names.map((name) => columns[name as keyof typeof columns])],
  );
  if (!rows[0]) throw definitionNotFound(id);
  return rows[0];
}

/**
 * The objects of a kind whose value under `key` breaks a rule (`where`, an SQL condition on `v`, the value as jsonb,
 * absent as SQL NULL): how many, and up to 10 of their ids. The condition is one of `attribute-definitions.service.ts`'s fixed
 * fragments; the key and the rule's values are parameters.
 */
export async function conflictingObjects(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
  key: string,
  where: string,
  values: readonly unknown[] = [],
): Promise<{ count: number; ids: string[] }> {
  const { rows } = await db.query<{ count: number; ids: string[] | null }>(
    `SELECT count(*)::int AS count, (array_agg(id ORDER BY id))[1:10] AS ids
       FROM (SELECT id, custom_attributes -> $2 AS v FROM ${TABLES[objectType]} WHERE workspace_id = $1) o
      WHERE ${where}`,
    [scope, key, ...values],
  );
  return { count: rows[0]?.count ?? 0, ids: rows[0]?.ids ?? [] };
}

/** The values under `key` of the objects of a kind that have one, by id after `after`, `limit` at a time. */
export async function valuesUnder(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
  key: string,
  after: string,
  limit: number,
): Promise<{ id: string; v: unknown }[]> {
  const { rows } = await db.query<{ id: string; v: unknown }>(
    `SELECT id, custom_attributes -> $2 AS v FROM ${TABLES[objectType]}
      WHERE workspace_id = $1 AND custom_attributes ? $2 AND id > $3 ORDER BY id LIMIT ${Math.trunc(limit)}`,
    [scope, key, after],
  );
  return rows;
}

/** The objects of a kind that share a value under `key` with another: how many, and up to 10 of their ids. */
export async function duplicateObjects(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
  key: string,
): Promise<{ count: number; ids: string[] }> {
  return conflictingObjects(
    db,
    scope,
    objectType,
    key,
    `v IS NOT NULL AND v <> 'null'::jsonb AND v IN (
       SELECT custom_attributes -> $2 FROM ${TABLES[objectType]} WHERE workspace_id = $1
        GROUP BY 1 HAVING count(*) > 1)`,
  );
}

/**
 * Whether another object of the kind holds `value` under `key`, once the scope's writers of that value are
 * serialised (an advisory lock until the transaction ends): the id of one, or undefined.
 */
export async function holderOf(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
  key: string,
  value: unknown,
  except: string | undefined,
): Promise<string | undefined> {
  const text = JSON.stringify(value);
  await db.query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))", [
    `attribute-value:${scope}:${objectType}:${key}:${text}`,
  ]);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM ${TABLES[objectType]}
      WHERE workspace_id = $1 AND custom_attributes -> $2 = $3::jsonb AND id IS DISTINCT FROM $4 LIMIT 1`,
    [scope, key, text, except ?? null],
  );
  return rows[0]?.id;
}
