/**
 * Leads: the wire shape and the rules of a write. Tags are a set (duplicates dropped, first order kept). Every change
 * records its event in the write's transaction: `lead.captured`, `lead.updated` (only when a value really changes;
 * an update to the same values changes nothing, not even `version`), `lead.deleted` (lead-deletion.ts).
 */

import { isDeepStrictEqual } from "node:util";
import type { components } from "@service/spec/schema";
import type { PageParams } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { checkCustomAttributes } from "../attribute-definitions/attribute-definitions.service.ts";
import type { RecordEvent } from "../events/events.service.ts";
import { isLiveScope } from "../modes.ts";
import type { Precondition } from "../preconditions.ts";
import type { LeadFilters, LeadRow, LeadValues } from "./leads.store.ts";
import * as store from "./leads.store.ts";

export type Lead = components["schemas"]["Lead"];
type LeadCreate = components["schemas"]["LeadCreate"];
type LeadUpdate = components["schemas"]["LeadUpdate"];

export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    object: "lead",
    livemode: isLiveScope(row.workspace_id),
    email: row.email,
    phone: row.phone,
    name: row.name,
    company: row.company,
    status: row.status,
    source: row.source,
    tags: row.tags,
    custom_attributes: row.custom_attributes,
    external_id: row.external_id,
    created_at: row.created_at,
    updated_at: row.updated_at,
    version: row.version,
  };
}

/** The stored form of the fields a write sets: tags as a set, attributes as JSON text. */
export function toValues(input: LeadUpdate): LeadValues {
  const { tags, custom_attributes, ...rest } = input;
  return {
    ...rest,
    ...(tags && { tags: [...new Set(tags)] }),
    ...(custom_attributes && { custom_attributes: JSON.stringify(custom_attributes) }),
  };
}

export function listLeads(db: Queryable, workspaceId: string, query: LeadFilters & PageParams) {
  return store.listLeadRows(db, workspaceId, { ...query, email: query.email?.trim() }, query, toLead);
}

export async function getLead(db: Queryable, workspaceId: string, id: string): Promise<Lead> {
  return toLead(await store.findLeadRow(db, workspaceId, id));
}

export async function createLead(
  db: Queryable,
  workspaceId: string,
  input: LeadCreate,
  record: RecordEvent,
): Promise<Lead> {
  await checkCustomAttributes(db, workspaceId, "lead", input.custom_attributes ?? {});
  const lead = toLead(await store.insertLeadRow(db, workspaceId, newLeadValues(input)));
  return capturedLead(db, workspaceId, lead, record);
}

/** A new lead, its `lead.captured` recorded. */
export async function capturedLead(db: Queryable, workspaceId: string, lead: Lead, record: RecordEvent): Promise<Lead> {
  await record(db, workspaceId, "lead.captured", { object: lead });
  return lead;
}

/** Every column of a new lead: what `input` leaves out takes its default. */
export function newLeadValues(input: LeadCreate): Required<LeadValues> {
  return {
    email: null,
    phone: null,
    name: null,
    company: null,
    status: "new",
    source: null,
    external_id: null,
    ...toValues(input),
    tags: [...new Set(input.tags ?? [])],
    custom_attributes: JSON.stringify(input.custom_attributes ?? {}),
  };
}

type LeadField = keyof LeadValues & keyof Lead;

/** The fields whose value `values` really changes on `current` (attributes compared as JSON values, not text). */
function changedLeadFields(current: Lead, values: LeadValues): LeadField[] {
  return (Object.keys(values) as LeadField[]).filter((field) => {
    const next = field === "custom_attributes" ? JSON.parse(values.custom_attributes as string) : values[field];
    return !isDeepStrictEqual(next ?? null, current[field]);
  });
}

export async function updateLead(
  db: Queryable,
  workspaceId: string,
  id: string,
  patch: LeadUpdate,
  record: RecordEvent,
  expect?: Precondition,
): Promise<Lead> {
  const current = toLead(await store.lockLeadRow(db, workspaceId, id));
  expect?.(current);
  return updateLockedLead(db, workspaceId, current, patch, record);
}

/** `updateLead` of a lead the caller has locked in this transaction (`current` is its row as locked). */
export async function updateLockedLead(
  db: Queryable,
  workspaceId: string,
  current: Lead,
  patch: LeadUpdate,
  record: RecordEvent,
): Promise<Lead> {
  const id = current.id;
  if (patch.custom_attributes) {
    await checkCustomAttributes(db, workspaceId, "lead", patch.custom_attributes, { self: id });
  }
  const values = toValues(patch);
  const changed = changedLeadFields(current, values);
  if (changed.length === 0) return current;
  const changes = Object.fromEntries(changed.map((field) => [field, values[field]])) as LeadValues;
  const lead = toLead(await store.updateLeadRow(db, workspaceId, id, changes));
  await record(db, workspaceId, "lead.updated", {
    object: lead,
    changed_fields: changed,
    previous_attributes: Object.fromEntries(changed.map((field) => [field, current[field]])),
  });
  return lead;
}

/** Locks the lead for its deletion (lead-deletion.ts): a conversation or ticket made meanwhile waits, then fails. */
export async function lockLead(db: Queryable, workspaceId: string, id: string, expect?: Precondition): Promise<Lead> {
  const lead = toLead(await store.lockLeadRow(db, workspaceId, id));
  expect?.(lead);
  return lead;
}

export function deleteLead(db: Queryable, workspaceId: string, id: string): Promise<void> {
  return store.deleteLeadRow(db, workspaceId, id);
}

/** 404 `LEAD_NOT_FOUND` unless the lead a conversation or ticket points at is in the workspace; none is fine. */
export async function requireLead(db: Queryable, workspaceId: string, id: string | null | undefined): Promise<void> {
  if (id) await store.findLeadRow(db, workspaceId, id);
}
