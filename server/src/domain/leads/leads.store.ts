/** All SQL of leads. Every statement is scoped to a workspace. */
import type { components } from "@service/spec/schema";
import { lockMatchKeys } from "../../db/match-locks.ts";
import { findInWorkspace, isUniqueViolation, listPage, type PageParams, updateRow } from "../../db/pages.ts";
import type { Queryable } from "../../db/queryable.ts";
import { WIRE_TIMESTAMPS } from "../../db/timestamps.ts";
import { AppError } from "../../errors.ts";
import { newId } from "../../lib/ids.ts";

export interface LeadRow {
  id: string;
  /** The scope: the workspace's, or its test scope's (domain/modes.ts). */
  workspace_id: string;
  email: string | null;
  phone: string | null;
  name: string | null;
  company: string | null;
  status: components["schemas"]["LeadStatus"];
  source: string | null;
  tags: string[];
  custom_attributes: Record<string, unknown>;
  external_id: string | null;
  /** As the wire writes it: a lead's rows only go to the wire, so its timestamps are read as text (WIRE_TIMESTAMPS). */
  created_at: string;
  updated_at: string;
  version: number;
}

/** The columns a write may set, as the service has prepared them (tags de-duplicated, attributes as JSON text). */
export interface LeadValues {
  email?: string | null;
  phone?: string | null;
  name?: string | null;
  company?: string | null;
  status?: LeadRow["status"];
  source?: string | null;
  tags?: string[];
  custom_attributes?: string;
  external_id?: string | null;
}

const UPDATABLE = ["email", "phone", "name", "company", "status", "source", "tags", "custom_attributes", "external_id"];

export interface LeadFilters {
  status?: LeadRow["status"];
  email?: string;
  external_id?: string;
  created_after?: string;
  updated_after?: string;
}

const leadNotFound = (id: string) => new AppError("LEAD_NOT_FOUND", { detail: `No lead ${id} in this workspace.` });

/** The unique external_id as its 409, any other failure as it is. */
function externalIdTaken(error: unknown): never {
  if (isUniqueViolation(error, "leads_external_id")) {
    throw new AppError("EXTERNAL_ID_TAKEN", {
      detail: "Another lead in this workspace has this external_id.",
      cause: error,
    });
  }
  throw error;
}

export function listLeadRows<Item>(
  db: Queryable,
  workspaceId: string,
  filters: LeadFilters,
  page: PageParams,
  toItem: (row: LeadRow) => Item,
) {
  return listPage(
    db,
    {
      select: "SELECT * FROM leads",
      kind: "lead",
      workspaceId,
      types: WIRE_TIMESTAMPS,
      filters: [
        ["status = ?", filters.status],
        ["lower(email) = lower(?)", filters.email],
        ["external_id = ?", filters.external_id],
        ["created_at >= ?", filters.created_after],
        ["updated_at >= ?", filters.updated_after],
      ],
    },
    page,
    toItem,
  );
}

export function findLeadRow(db: Queryable, workspaceId: string, id: string): Promise<LeadRow> {
  return findInWorkspace<LeadRow>(db, "leads", workspaceId, id, () => leadNotFound(id), { types: WIRE_TIMESTAMPS });
}

/**
 * The leads whose `external_id`, or e-mail address in any case, is one of `values`, locked until the transaction ends,
 * after the match locks of `values` (db/match-locks.ts): a concurrent batch with one of them waits until this one ends,
 * then finds what it created.
 * They are found and locked through the index of what they match on, in its order, so that two batches lock the leads
 * they share in the same order; and the statement is planned for its values each time (unnamed): a plan kept for any
 * values scanned a workspace's leads in id order instead.
 */
export async function lockMatchingLeadRows(
  db: Queryable,
  workspaceId: string,
  matchOn: "external_id" | "email",
  values: readonly string[],
): Promise<LeadRow[]> {
  const where =
    matchOn === "external_id"
      ? "external_id IS NOT NULL AND external_id = ANY($2::text[])"
      : "lower(email) = ANY(ARRAY(SELECT lower(v) FROM unnest($2::text[]) v))";
  const normal = matchOn === "email" ? "lower" : "exact";
  await lockMatchKeys(db, { kind: "lead", workspaceId, field: matchOn, normal }, values);
  const { rows } = await db.query<LeadRow>({
    text: `SELECT * FROM leads WHERE workspace_id = $1 AND ${where} FOR UPDATE`,
    values: [workspaceId, values],
    types: WIRE_TIMESTAMPS,
  });
  return rows;
}

/** The row, locked until the transaction ends: an update compares with it, a deletion holds it. */
export function lockLeadRow(db: Queryable, workspaceId: string, id: string): Promise<LeadRow> {
  return findInWorkspace<LeadRow>(db, "leads", workspaceId, id, () => leadNotFound(id), {
    types: WIRE_TIMESTAMPS,
    forUpdate: true,
  });
}

/**
 * The new lead's row; 409 `EXTERNAL_ID_TAKEN` when another lead has its `external_id`. A taken `external_id` inserts
 * nothing rather than failing the statement, so the caller's transaction goes on (a batch's other items need no
 * savepoint for it).
 */
export async function insertLeadRow(
  db: Queryable,
  workspaceId: string,
  values: Required<LeadValues>,
): Promise<LeadRow> {
  try {
    const { rows } = await db.query<LeadRow>({
      name: "insert-lead",
      text: `INSERT INTO leads (id, workspace_id, email, phone, name, company, status, source, tags, custom_attributes, external_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (workspace_id, external_id) WHERE external_id IS NOT NULL DO NOTHING RETURNING *`,
      types: WIRE_TIMESTAMPS,
      values: [
        newId("lead"),
        workspaceId,
        values.email,
        values.phone,
        values.name,
        values.company,
        values.status,
        values.source,
        values.tags,
        values.custom_attributes,
        values.external_id,
      ],
    });
    if (rows[0]) return rows[0];
  } catch (error) {
    externalIdTaken(error);
  }
  throw new AppError("EXTERNAL_ID_TAKEN", { detail: "Another lead in this workspace has this external_id." });
}

/**
 * Many new leads in one statement, each with its id: the rows inserted, in any order. A lead whose `external_id` is
 * taken (by another lead, or by an earlier one of `leads`) inserts nothing and has no row here; the statement never
 * fails for it, so the caller finds which ones are missing by id.
 */
export async function insertLeadRows(
  db: Queryable,
  workspaceId: string,
  leads: readonly { id: string; values: Required<LeadValues> }[],
): Promise<LeadRow[]> {
  const records = leads.map(({ id, values }) => ({ ...values, id }));
  const { rows } = await db.query<LeadRow>({
    text: `INSERT INTO leads (id, workspace_id, email, phone, name, company, status, source, tags, custom_attributes, external_id)
     SELECT r.id, $1, r.email, r.phone, r.name, r.company, r.status, r.source, r.tags, r.custom_attributes::jsonb, r.external_id
       FROM jsonb_to_recordset($2::jsonb) AS r(id text, email text, phone text, name text, company text, status text,
                                               source text, tags text[], custom_attributes text, external_id text)
     ON CONFLICT (workspace_id, external_id) WHERE external_id IS NOT NULL DO NOTHING RETURNING *`,
    types: WIRE_TIMESTAMPS,
    values: [workspaceId, JSON.stringify(records)],
  });
  return rows;
}

export async function updateLeadRow(
  db: Queryable,
  workspaceId: string,
  id: string,
  values: LeadValues,
): Promise<LeadRow> {
  let row: LeadRow | undefined;
  try {
    row = await updateRow<LeadRow>(db, "leads", workspaceId, id, { ...values }, UPDATABLE, {
      types: WIRE_TIMESTAMPS,
      versioned: true,
    });
  } catch (error) {
    externalIdTaken(error);
  }
  if (!row) throw leadNotFound(id);
  return row;
}

export async function deleteLeadRow(db: Queryable, workspaceId: string, id: string): Promise<void> {
  const { rowCount } = await db.query("DELETE FROM leads WHERE workspace_id = $1 AND id = $2", [workspaceId, id]);
  if (!rowCount) throw leadNotFound(id);
}
