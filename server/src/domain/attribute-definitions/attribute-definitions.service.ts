/**
 * Attribute definitions: typed fields of leads, conversations and tickets in their `custom_attributes`. A definition
 * is made, changed and archived here, each refused (409 `ATTRIBUTE_VALUES_CONFLICT`, nothing half-applied) when
 * objects already hold values it would refuse; and every write of an object checks its values against the kind's
 * definitions (`checkCustomAttributes`): a value that does not fit is a 400 naming `body.custom_attributes.<key>`.
 * Keys without a definition take any value, as before definitions existed.
 */
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { AppError, type FieldError } from "../../errors.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { isLiveScope } from "../modes.ts";
import type { Precondition } from "../preconditions.ts";
import type { AttributeObject, DefinitionRow } from "./attribute-definitions.store.ts";
import * as store from "./attribute-definitions.store.ts";
import { type AttributeRule, UNIQUE_TYPES, valueProblem } from "./attribute-values.ts";

export type AttributeDefinition = components["schemas"]["AttributeDefinition"];
type DefinitionCreate = components["schemas"]["AttributeDefinitionCreate"];
type DefinitionUpdate = components["schemas"]["AttributeDefinitionUpdate"];

function toDefinition(row: DefinitionRow): AttributeDefinition {
  return {
    id: row.id,
    object: "attribute_definition",
    livemode: isLiveScope(row.workspace_id),
    object_type: row.object_type,
    key: row.key,
    label: row.label,
    description: row.description,
    type: row.type,
    options: row.options,
    required: row.required,
    unique: row.unique,
    archived_at: row.archived_at ? row.archived_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    version: row.version,
  };
}

export function listDefinitions(
  db: Queryable,
  scope: string,
  query: { object_type?: AttributeObject; include_archived?: boolean } & PageParams,
) {
  return store.listDefinitionRows(db, scope, query, query, toDefinition);
}

export async function getDefinition(db: Queryable, scope: string, id: string): Promise<AttributeDefinition> {
  return toDefinition(await store.findDefinitionRow(db, scope, id));
}

const ENUMS: ReadonlySet<string> = new Set(["enum", "multi_enum"]);

/** 400 for a rule that cannot be: options on a type without them (or none on one with them), `unique` on a list. */
function refuseMalformed(rule: AttributeRule): void {
  const errors: FieldError[] = [];
  if (ENUMS.has(rule.type) && rule.options.length === 0) {
    errors.push({ path: "body.options", message: `an ${rule.type} attribute needs at least one option` });
  }
  if (!ENUMS.has(rule.type) && rule.options.length > 0) {
    errors.push({ path: "body.options", message: `a ${rule.type} attribute has no options` });
  }
  if (new Set(rule.options).size !== rule.options.length) {
    errors.push({ path: "body.options", message: "must not repeat an option" });
  }
  if (rule.unique && !UNIQUE_TYPES.has(rule.type)) {
    errors.push({ path: "body.unique", message: `a ${rule.type} attribute cannot be unique` });
  }
  if (errors.length > 0) throw new AppError("VALIDATION_FAILED", { errors });
}

/** How many existing values a scan reads at a time. */
const SCAN_BATCH = 5_000;

/**
 * 409 `ATTRIBUTE_VALUES_CONFLICT` when objects of the kind hold values under the rule's key that it would refuse:
 * of another type or outside its options, missing where it is required, repeated where it is unique. The caller
 * holds the kind's definitions lock, so no write of the kind runs meanwhile.
 */
async function refuseConflicts(db: Queryable, scope: string, objectType: AttributeObject, rule: AttributeRule) {
  const ids: string[] = [];
  let count = 0;
  for (let after = ""; ; ) {
    const batch = await store.valuesUnder(db, scope, objectType, rule.key, after, SCAN_BATCH);
    for (const { id, v } of batch) {
      if (valueProblem(rule, v) === undefined) continue;
      count++;
      if (ids.length < 10) ids.push(id);
    }
    if (batch.length < SCAN_BATCH) break;
    after = batch[batch.length - 1]?.id ?? after;
  }
  const conflicts = [
    { count, ids, why: `values that are not ${rule.type}${ENUMS.has(rule.type) ? " of its options" : ""}` },
    ...(rule.required
      ? [
          {
            ...(await store.conflictingObjects(db, scope, objectType, rule.key, "v IS NULL OR v = 'null'::jsonb")),
            why: "no value",
          },
        ]
      : []),
    ...(rule.unique
      ? [{ ...(await store.duplicateObjects(db, scope, objectType, rule.key)), why: "a value another has too" }]
      : []),
  ];
  const found = conflicts.find((conflict) => conflict.count > 0);
  if (!found) return;
  throw new AppError("ATTRIBUTE_VALUES_CONFLICT", {
    detail: `${found.count} ${objectType}s hold ${found.why} under ${rule.key}; nothing was changed.`,
    conflicting: { count: found.count, ids: found.ids },
  });
}

export async function createDefinition(db: Queryable, scope: string, input: DefinitionCreate, record: RecordEvent) {
  const rule: AttributeRule = {
    key: input.key,
    type: input.type,
    options: input.options ?? [],
    required: input.required ?? false,
    unique: input.unique ?? false,
  };
  refuseMalformed(rule);
  const count = await store.lockDefinitionsOf(db, scope, input.object_type);
  if (count >= store.MAX_DEFINITIONS_PER_OBJECT) {
    throw new AppError("RESOURCE_LIMIT_REACHED", {
      detail: `A ${input.object_type} has at most ${store.MAX_DEFINITIONS_PER_OBJECT} attribute definitions, archived ones included.`,
    });
  }
  await store.refuseTakenKey(db, scope, input.object_type, input.key);
  await refuseConflicts(db, scope, input.object_type, rule);
  const row = await store.insertDefinitionRow(db, scope, {
    object_type: input.object_type,
    key: input.key,
    label: input.label,
    description: input.description ?? null,
    type: input.type,
    options: rule.options as string[],
    required: rule.required,
    unique: rule.unique,
  });
  const definition = toDefinition(row);
  await record(db, scope, "attribute_definition.created", { object: definition });
  return definition;
}

/** The rule a definition row states. */
const ruleOf = (row: DefinitionRow): AttributeRule => ({
  key: row.key,
  type: row.type,
  options: row.options,
  required: row.required,
  unique: row.unique,
});

export async function updateDefinition(
  db: Queryable,
  scope: string,
  id: string,
  patch: DefinitionUpdate,
  record: RecordEvent,
  expect?: Precondition,
): Promise<AttributeDefinition> {
  const found = await store.findDefinitionRow(db, scope, id);
  await store.lockDefinitionsOf(db, scope, found.object_type);
  const current = await store.findDefinitionRow(db, scope, id, true);
  expect?.(current);
  if (current.archived_at) {
    throw new AppError("INVALID_STATE_TRANSITION", { detail: `The attribute definition ${id} is archived.` });
  }
  const changes: Parameters<typeof store.updateDefinitionRow>[3] = {};
  if (patch.label !== undefined && patch.label !== current.label) changes.label = patch.label;
  if (patch.description !== undefined && patch.description !== current.description) {
    changes.description = patch.description;
  }
  if (patch.options !== undefined && patch.options.join("\n") !== current.options.join("\n")) {
    changes.options = patch.options;
  }
  if (patch.required !== undefined && patch.required !== current.required) changes.required = patch.required;
  if (patch.unique !== undefined && patch.unique !== current.unique) changes.unique = patch.unique;
  if (Object.keys(changes).length === 0) return toDefinition(current);
  const rule = { ...ruleOf(current), ...changes } as AttributeRule;
  refuseMalformed(rule);
  // Only what the change asks more of existing values is checked again: new options or a new required or unique.
  const stricter = changes.options !== undefined || changes.required === true || changes.unique === true;
  if (stricter) await refuseConflicts(db, scope, current.object_type, rule);
  const before = toDefinition(current);
  const after = toDefinition(await store.updateDefinitionRow(db, scope, id, changes));
  const changed = Object.keys(changes) as (keyof typeof changes & keyof AttributeDefinition)[];
  await record(db, scope, "attribute_definition.updated", {
    object: after,
    changed_fields: changed,
    previous_attributes: Object.fromEntries(changed.map((field) => [field, before[field]])),
  });
  return after;
}

/** Archives a definition: it checks nothing from now on; the values stay. Archiving an archived one changes nothing. */
export async function archiveDefinition(
  db: Queryable,
  scope: string,
  id: string,
  record: RecordEvent,
): Promise<AttributeDefinition> {
  const found = await store.findDefinitionRow(db, scope, id);
  await store.lockDefinitionsOf(db, scope, found.object_type);
  const current = await store.findDefinitionRow(db, scope, id, true);
  if (current.archived_at) return toDefinition(current);
  const archived = toDefinition(await store.updateDefinitionRow(db, scope, id, { archive: true }));
  await record(db, scope, "attribute_definition.archived", { object: archived });
  return archived;
}

/**
 * Checks a write's `custom_attributes` (the whole object as it will be stored) against the kind's active definitions:
 * each defined key's value must fit its type and options, a required key must have a value, and a unique one a value
 * no other object of the kind has (`self`: the object being changed). Throws 400 `VALIDATION_FAILED` naming each
 * `<prefix>.<key>` that does not fit (`body.custom_attributes`, or a batch item's `body.items.3.custom_attributes`).
 * `seen`, shared by the items of one batch inserted at once, holds the unique values already taken by earlier items.
 *
 * @example
 * await checkCustomAttributes(db, scope, "lead", { plan: "gold" }); // 400 if plan is an enum without gold
 */
export async function checkCustomAttributes(
  db: Queryable,
  scope: string,
  objectType: AttributeObject,
  values: Readonly<Record<string, unknown>>,
  options: { self?: string; prefix?: string; seen?: Set<string> } = {},
): Promise<void> {
  const definitions = await store.activeDefinitionRows(db, scope, objectType);
  if (definitions.length === 0) return;
  const errors: FieldError[] = [];
  const taken: string[] = [];
  for (const definition of definitions) {
    const value = values[definition.key];
    const path = `${options.prefix ?? "body.custom_attributes"}.${definition.key}`;
    if (value === undefined || value === null) {
      if (definition.required) errors.push({ path, message: "is required" });
      continue;
    }
    const problem = valueProblem(ruleOf(definition), value);
    if (problem) {
      errors.push({ path, message: problem });
      continue;
    }
    if (!definition.unique) continue;
    const mark = `${definition.key}\u0000${JSON.stringify(value)}`;
    const holder = options.seen?.has(mark)
      ? "an earlier item of this batch"
      : await store.holderOf(db, scope, objectType, definition.key, value, options.self);
    if (holder) errors.push({ path, message: `must be unique: ${holder} has this value` });
    else taken.push(mark);
  }
  if (errors.length > 0) throw new AppError("VALIDATION_FAILED", { errors });
  for (const mark of taken) options.seen?.add(mark);
}
