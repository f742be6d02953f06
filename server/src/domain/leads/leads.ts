/** Leads: SQL, rules and the wire shape. Creating one records `lead.captured` in the same transaction. */
import type { components } from "@service/spec/schema";
import type pg from "pg";
import { fetchPage, isUniqueViolation, updateRow } from "../../db/pages.ts";
import { AppError } from "../../errors.ts";
import { decodeCursor, toPage } from "../../lib/cursor.ts";
import { newId } from "../../lib/ids.ts";
import type { RecordEvent } from "../events/events.ts";

type Db = Pick<pg.PoolClient, "query">;
export type Lead = components["schemas"]["Lead"];
export type LeadCreate = components["schemas"]["LeadCreate"];
export type LeadUpdate = components["schemas"]["LeadUpdate"];

const LEAD_ID = /^lead_[0-9A-HJKMNP-TV-Z]{26}$/;
const UPDATABLE = ["email", "phone", "name", "company", "status", "source", "tags", "custom_attributes", "external_id"];

interface LeadRow {
  id: string;
  email: string | null;
  phone: string | null;
  name: string | null;
  company: string | null;
  status: Lead["status"];
  source: string | null;
  tags: string[];
  custom_attributes: Record<string, unknown>;
  external_id: string | null;
  created_at: Date;
  updated_at: Date;
}

export function toLead(row: LeadRow): Lead {
  return {
    id: row.id,
    object: "lead",
    email: row.email,
    phone: row.phone,
    name: row.name,
    company: row.company,
    status: row.status,
    source: row.source,
    tags: row.tags,
    custom_attributes: row.custom_attributes,
    external_id: row.external_id,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

function externalIdTaken(error: unknown): never {
  if (isUniqueViolation(error, "leads_external_id")) {
    throw new AppError("EXTERNAL_ID_TAKEN", {
      detail: "Another lead in this workspace has this external_id.",
      cause: error,
    });
  }
  throw error;
}

export async function listLeads(
  db: Db,
  workspaceId: string,
  query: {
    limit?: number;
    cursor?: string;
    status?: Lead["status"];
    email?: string;
    external_id?: string;
    created_after?: string;
    updated_after?: string;
  },
) {
  const limit = query.limit ?? 20;
  const rows = await fetchPage<LeadRow>(db, {
    select: "SELECT * FROM leads",
    workspaceId,
    filters: [
      ["status = ?", query.status],
      ["lower(email) = lower(?)", query.email?.trim()],
      ["external_id = ?", query.external_id],
      ["created_at >= ?", query.created_after],
      ["updated_at >= ?", query.updated_after],
    ],
    limit,
    after: decodeCursor(query.cursor, LEAD_ID),
  });
  const page = toPage(rows, limit);
  return { ...page, data: page.data.map(toLead) };
}

export async function getLead(db: Db, workspaceId: string, id: string): Promise<Lead> {
  const { rows } = await db.query<LeadRow>("SELECT * FROM leads WHERE workspace_id = $1 AND id = $2", [
    workspaceId,
    id,
  ]);
  if (!rows[0]) throw new AppError("LEAD_NOT_FOUND", { detail: `No lead ${id} in this workspace.` });
  return toLead(rows[0]);
}

export async function createLead(db: Db, workspaceId: string, input: LeadCreate, record: RecordEvent): Promise<Lead> {
  let row: LeadRow | undefined;
  try {
    const result = await db.query<LeadRow>(
      `INSERT INTO leads (id, workspace_id, email, phone, name, company, status, source, tags, custom_attributes, external_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [
        newId("lead"),
        workspaceId,
        input.email ?? null,
        input.phone ?? null,
        input.name ?? null,
        input.company ?? null,
        input.status ?? "new",
        input.source ?? null,
        [...new Set(input.tags ?? [])],
        JSON.stringify(input.custom_attributes ?? {}),
        input.external_id ?? null,
      ],
    );
    row = result.rows[0];
  } catch (error) {
    externalIdTaken(error);
  }
  const lead = toLead(row as LeadRow);
  await record(db, workspaceId, "lead.captured", { object: lead });
  return lead;
}

export async function updateLead(db: Db, workspaceId: string, id: string, patch: LeadUpdate): Promise<Lead> {
  const changes: Record<string, unknown> = { ...patch };
  if (patch.tags) changes.tags = [...new Set(patch.tags)];
  if (patch.custom_attributes) changes.custom_attributes = JSON.stringify(patch.custom_attributes);
  let row: LeadRow | undefined;
  try {
    row = await updateRow<LeadRow>(db, "leads", workspaceId, id, changes, UPDATABLE);
  } catch (error) {
    externalIdTaken(error);
  }
  if (!row) throw new AppError("LEAD_NOT_FOUND", { detail: `No lead ${id} in this workspace.` });
  return toLead(row);
}

export async function deleteLead(db: Db, workspaceId: string, id: string): Promise<void> {
  const { rowCount } = await db.query("DELETE FROM leads WHERE workspace_id = $1 AND id = $2", [workspaceId, id]);
  if (!rowCount) throw new AppError("LEAD_NOT_FOUND", { detail: `No lead ${id} in this workspace.` });
}
