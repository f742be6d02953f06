/**
 * The /v1/leads reads of bench:scale at one table size: the first page, the page 500 pages deep (its cursor found
 * by walking the pages, as a client does), a page filtered by status and e-mail (in another case than stored), and
 * one lead by id. The filtered lead and the lead read by id are the same rows at every size (rows 5,002 and
 * 5,000 of the workspace, among the first 10,000 seeded), so that only the table around them grows.
 */
import { availableParallelism } from "node:os";
import type pg from "pg";
import { getLead, listLeads } from "../../server/src/domain/leads/leads.service.ts";
import { type LoadResult, load } from "./load.ts";
import { cpuBetween, snapshot } from "./scale-cpu.ts";
import { captureQueries, executionMs, explain } from "./scale-plans.ts";
import { seededLead } from "./scale-seed.ts";

export const PAGE_DEPTH = 500;
const PAGE_SIZE = 20;
const BY_ID_ROW = 5_000;
const FILTERED_ROW = 5_002;
const ROUNDS = 5;

export interface LeadScenario {
  scenario: string;
  load: LoadResult;
  /** The SQL the service runs for it. */
  sql: string;
  plan: string;
  /** Execution time in PostgreSQL, from the plan. */
  dbMs: number;
  /** CPU ms per request of the API process and the database's backends. */
  cpuPerRequest: number;
  /** The share of the machine's cores that other processes used meanwhile. */
  othersBusy: number;
}

interface Page {
  data: { id: string; email: string | null }[];
  next_cursor: string | null;
}

export async function measureLeads(input: {
  pool: pg.Pool;
  url: string;
  auth: Record<string, string>;
  workspaceId: string;
  rows: number;
  /** The API process, whose CPU time is measured. */
  apiPid: number | undefined;
}): Promise<LeadScenario[]> {
  const { pool, url, auth, workspaceId } = input;
  const get = async <T>(path: string): Promise<T> => {
    const response = await fetch(`${url}${path}`, { headers: auth });
    if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };

  const walking = performance.now();
  let cursor: string | null = null;
  for (let page = 1; page < PAGE_DEPTH; page++) {
    const body: Page = await get<Page>(`/v1/leads?limit=${PAGE_SIZE}${cursor ? `&cursor=${cursor}` : ""}`);
    cursor = body.next_cursor;
    if (!cursor) throw new Error(`page ${page} has no next page: fewer than ${PAGE_DEPTH * PAGE_SIZE} leads?`);
  }
  const walkMs = performance.now() - walking;
  console.log(
    `${input.rows.toLocaleString("en-US")} rows: walked ${PAGE_DEPTH - 1} pages by cursor in ${(walkMs / 1000).toFixed(1)} s ` +
      `(${(walkMs / (PAGE_DEPTH - 1)).toFixed(1)} ms a page, one at a time)`,
  );
  const deep = cursor as string;

  const filtered = seededLead("lead", FILTERED_ROW);
  const email = filtered.email.toUpperCase();
  const { rows } = await pool.query<{ id: string }>("SELECT id FROM leads WHERE workspace_id = $1 AND email = $2", [
    workspaceId,
    seededLead("lead", BY_ID_ROW).email,
  ]);
  const id = rows[0]?.id as string;
  const scenarios = [
    {
      scenario: "first page",
      path: `/v1/leads?limit=${PAGE_SIZE}`,
      expect: (body: Page) => body.data.length === PAGE_SIZE,
      sql: (db: pg.PoolClient) => listLeads(db, workspaceId, { limit: PAGE_SIZE }),
    },
    {
      scenario: `page ${PAGE_DEPTH} by cursor`,
      path: `/v1/leads?limit=${PAGE_SIZE}&cursor=${deep}`,
      expect: (body: Page) => body.data.length === PAGE_SIZE,
      sql: (db: pg.PoolClient) => listLeads(db, workspaceId, { limit: PAGE_SIZE, cursor: deep }),
    },
    {
      scenario: "status + email",
      path: `/v1/leads?status=${filtered.status}&email=${encodeURIComponent(email)}`,
      expect: (body: Page) => body.data.length === 1 && body.data[0]?.email === filtered.email,
      sql: (db: pg.PoolClient) => listLeads(db, workspaceId, { status: filtered.status, email }),
    },
    {
      scenario: "GET /v1/leads/{id}",
      path: `/v1/leads/${id}`,
      expect: (body: Page & { id?: string }) => body.id === id,
      sql: (db: pg.PoolClient) => getLead(db, workspaceId, id),
    },
  ];

  const results: LeadScenario[] = [];
  for (const scenario of scenarios) {
    if (!scenario.expect(await get<Page>(scenario.path))) throw new Error(`unexpected answer to ${scenario.path}`);
    const name = `${scenario.scenario}, ${input.rows.toLocaleString("en-US")} rows`;
    const request = () => ({ method: "GET" as const, path: scenario.path, headers: auth });
    await load(name, url, request, { durationSeconds: 1, warmUpSeconds: 0 }); // warm-up
    // The machine is shared: other work only ever slows a round down, so each figure's best over the rounds is the
    // closest to that of this code and this data alone (the most req/s, the least p50 and p99, each on its own).
    // The CPU time per request (the API process and the database's backends, over all rounds) is the work itself,
    // whatever the neighbours do.
    const from = await snapshot(pool, { API: input.apiPid });
    const rounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push(await load(name, url, request, { durationSeconds: 3, warmUpSeconds: 0 }));
    }
    const requests = rounds.reduce((sum, round) => sum + round.requests, 0);
    const result: LoadResult = {
      name,
      requests,
      errors: rounds.reduce((sum, round) => sum + round.errors, 0),
      perSecond: Math.max(...rounds.map((round) => round.perSecond)),
      p50: Math.min(...rounds.map((round) => round.p50)),
      p99: Math.min(...rounds.map((round) => round.p99)),
    };
    const used = cpuBetween(from, await snapshot(pool, { API: input.apiPid }));
    const cpuPerRequest = ((used.processes.API ?? 0) + used.backends) / Math.max(1, requests);
    const [query] = await captureQueries(scenario.sql);
    if (!query) throw new Error(`no query recorded for ${scenario.scenario}`);
    const plan = await explain(pool, query);
    results.push({
      scenario: scenario.scenario,
      load: result,
      sql: query.text,
      plan,
      dbMs: executionMs(plan),
      cpuPerRequest,
      othersBusy: used.others / (used.wallMs * availableParallelism()),
    });
  }
  return results;
}
