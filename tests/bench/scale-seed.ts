/**
 * Bulk seeding for bench:scale, with the ids the service would have made: a type prefix and a ULID whose time part
 * is the row's `created_at` (so ordering by id is ordering by creation, as the keyset pages assume). Ids are made in
 * Node (ulid's `encodeTime` and 80 random bits) and sent as arrays, 50,000 rows a statement; everything else is
 * computed by PostgreSQL from the row number.
 */
import { randomBytes } from "node:crypto";
import type pg from "pg";
import { encodeTime } from "ulid";

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
const CHUNK_ROWS = 50_000;
export const STATUSES = ["new", "contacted", "qualified", "disqualified", "converted"] as const;

/** `prefix_` + a ULID of time `ms`. */
export function idAt(prefix: string, ms: number, random: Buffer = randomBytes(16)): string {
  let tail = "";
  for (let i = 0; i < 16; i++) tail += CROCKFORD[(random[i] as number) & 31];
  return `${prefix}_${encodeTime(ms)}${tail}`;
}

/** The row number's lead, as seeded: its e-mail and status (status cycles through STATUSES by row number). */
export const seededLead = (emailPrefix: string, n: number) => ({
  email: `${emailPrefix}${n}@example.com`,
  status: STATUSES[n % STATUSES.length] as (typeof STATUSES)[number],
});

// Leads n = $3 + 1 … with their lead.captured events (the event's data is the lead, as the service records it).
const INSERT_LEADS_AND_EVENTS = `
WITH input AS (
  SELECT u.lead_id, u.event_id, $3::bigint + u.i AS n
    FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS u(lead_id, event_id, i)
), lead AS (
  INSERT INTO leads (id, workspace_id, email, phone, name, company, status, source, tags, custom_attributes,
                     created_at, updated_at)
  SELECT lead_id, $4, $5 || n || '@example.com', '+1555' || lpad(n::text, 7, '0'), 'Lead ' || n,
         'Company ' || n % 5000, (ARRAY['new','contacted','qualified','disqualified','converted'])[n % 5 + 1],
         'bench', '{bench}', jsonb_build_object('plan', 'pro', 'seats', n % 50),
         to_timestamp(($6::bigint + n * $7::bigint) / 1000.0), to_timestamp(($6::bigint + n * $7::bigint) / 1000.0)
    FROM input
  RETURNING *
)
INSERT INTO events (id, workspace_id, type, data, created_at)
SELECT input.event_id, $4, 'lead.captured',
       jsonb_build_object('object', to_jsonb(lead) - 'workspace_id' || '{"object": "lead"}'), lead.created_at
  FROM lead JOIN input ON input.lead_id = lead.id`;

export interface Timeline {
  /** created_at of row 0, in ms since the epoch. */
  baseMs: number;
  /** Between two rows of one workspace, in ms. */
  stepMs: number;
}

/** Leads `from + 1 … to` of a workspace, each with its event, created `stepMs` apart. */
export async function seedLeads(
  pool: pg.Pool,
  input: { workspaceId: string; emailPrefix: string; from: number; to: number; timeline: Timeline },
): Promise<void> {
  const { baseMs, stepMs } = input.timeline;
  for (let start = input.from; start < input.to; start += CHUNK_ROWS) {
    const end = Math.min(input.to, start + CHUNK_ROWS);
    const random = randomBytes((end - start) * 32);
    const leadIds: string[] = [];
    const eventIds: string[] = [];
    for (let n = start + 1; n <= end; n++) {
      const at = baseMs + n * stepMs;
      const offset = (n - start - 1) * 32;
      leadIds.push(idAt("lead", at, random.subarray(offset, offset + 16)));
      eventIds.push(idAt("evt", at, random.subarray(offset + 16, offset + 32)));
    }
    await pool.query(INSERT_LEADS_AND_EVENTS, [
      leadIds,
      eventIds,
      start,
      input.workspaceId,
      input.emailPrefix,
      baseMs,
      stepMs,
    ]);
  }
}

/** `count` more workspaces with `rows` leads and events each, created over the same `spanMs` from `baseMs`. */
export async function seedOtherWorkspaces(
  pool: pg.Pool,
  input: { count: number; rows: number; baseMs: number; spanMs: number },
): Promise<void> {
  const stepMs = Math.max(1, Math.floor(input.spanMs / input.rows));
  for (let w = 1; w <= input.count; w++) {
    const workspaceId = idAt("ws", input.baseMs + w);
    await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, $2)", [workspaceId, `Other ${w}`]);
    // Each workspace shifted back by a fraction of a step, so that their rows interleave evenly instead of all 100
    // landing on the same instants, and none is newer than the end of the timeline (the large workspace's newest
    // rows: a shift forward put every workspace's newest row after them, 100 rows in front of its first page).
    const baseMs = input.baseMs - Math.floor((w * stepMs) / (input.count + 1));
    await seedLeads(pool, {
      workspaceId,
      emailPrefix: `w${w}.lead`,
      from: 0,
      to: input.rows,
      timeline: { baseMs, stepMs },
    });
  }
}

/**
 * A day of writes' keys, nothing pruned yet: `expired` keys written 48 to 24 hours ago and `live` ones written in the
 * last 24 hours (each kept 24 hours), with a stored answer the size of a lead.
 */
export async function seedIdempotencyKeys(
  pool: pg.Pool,
  input: { workspaceId: string; expired: number; live: number },
): Promise<void> {
  const insert = (count: number, fromHoursAgo: number, label: string) =>
    pool.query(
      `INSERT INTO idempotency_keys (workspace_id, key, fingerprint, response_status, response_body, created_at, expires_at)
       SELECT $1, $3 || '-' || g, sha256(g::text::bytea), 201,
              jsonb_build_object('id', 'lead_' || lpad(g::text, 26, '0'), 'object', 'lead',
                                 'email', 'key' || g || '@example.com', 'name', 'Lead ' || g, 'status', 'new',
                                 'tags', '[]'::jsonb, 'custom_attributes', '{}'::jsonb),
              t, t + interval '24 hours'
         FROM generate_series(1, $2::int) AS g,
              LATERAL (SELECT now() - make_interval(hours => $4) + g * (interval '24 hours' / $2) AS t) AS at`,
      [input.workspaceId, count, label, fromHoursAgo],
    );
  await insert(input.expired, 48, "expired");
  await insert(input.live, 24, "live");
}
