/**
 * The fleet in network namespaces (tests/helpers/fleet.ts): two API hosts behind HAProxy, two worker hosts, a webhook
 * receiver, and a database host with PostgreSQL and Redis through Sentinel. Needs root, `ip`, HAProxy and
 * redis-server; without them it is skipped with one line saying how to get them, and with CI=true it fails instead.
 * It prints its figures (throughput through the balancer, failover and takeover times) as it goes.
 */
import { spawn } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { QUEUE_SCHEMA } from "../../server/src/jobs/queue.ts";
import { type Fleet, fleetMissing, fleetNamespaces, quantile, startFleet } from "../helpers/fleet.ts";
import { ALL_SCOPES } from "../helpers/sdk.ts";

/** How long the rolling restart's load lasts: the roll, started 3 s in, ends within it. */
const ROLL_LOAD_SECONDS = 60;
/** The fleet's /v1 budget a minute: high enough for the load below on one key, and the count still exact. */
const BUDGET = 1_000_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The remaining count of a `RateLimit` header (`"api-key";r=…;t=…`). */
const remaining = (header: string | undefined) => Number(/;r=(\d+)/.exec(header ?? "")?.[1] ?? Number.NaN);

const missing = fleetMissing();
/** The fleet brings its own PostgreSQL and Redis: CI runs it in one of its two sections, not again in the other. */
const off = process.env.FLEET_TEST === "off";
if (off) console.warn("skipping the fleet: FLEET_TEST=off");
else if (missing && process.env.CI !== "true") console.warn(`skipping the fleet: ${missing}`);

describe.skipIf(off || (missing !== undefined && process.env.CI !== "true"))("the fleet behind HAProxy", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    if (missing) throw new Error(missing);
    fleet = await startFleet({ API_RATE_LIMIT_PER_MINUTE: String(BUDGET) });
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
    // Nothing of it is left: no namespace (and with them their veth pairs and processes).
    expect(fleetNamespaces().filter((name) => fleet && name.includes(fleet.id))).toEqual([]);
  }, 60_000);

  /**
   * Restarts an API host and resolves once HAProxy has it back in rotation (its `… is UP` line), not after a fixed
   * wait: on a loaded machine its checks come later.
   */
  const restart = async <T>(host: "api1" | "api2", whileStopped: () => Promise<T> = async () => undefined as T) => {
    const up = () => fleet.lines("haproxy").filter((line) => line.includes(`api_hosts/${host} is UP`)).length;
    const before = up();
    expect(await fleet.stopService(host)).toBe(0);
    const result = await whileStopped();
    await fleet.startService(host);
    const deadline = Date.now() + 60_000;
    while (up() === before) {
      if (Date.now() > deadline) throw new Error(`HAProxy never took ${host} back:\n${fleet.output("haproxy")}`);
      await sleep(100);
    }
    return result;
  };

  /** A new workspace and an API key of it with these scopes. */
  const newKey = async (name: string, scopes: readonly string[]) => {
    const workspace = await fleet.admin("workspace:create", "--name", name, "--owner-email", `${name}@example.com`);
    const created = await fleet.admin(
      ...[
        "api-key:create",
        "--workspace",
        String(workspace.workspace_id),
        "--name",
        name,
        "--scopes",
        scopes.join(","),
      ],
    );
    return { key: String(created.key), id: String(created.id), workspaceId: String(workspace.workspace_id) };
  };

  it("admits exactly each account limit for one client address across both API hosts", async () => {
    const forgot = (n: number, headers: Record<string, string> = {}) => ({
      method: "POST",
      path: "/api/auth/forgot",
      headers,
      body: { email: `fleet.${n}@example.com` },
    });
    const answers = await fleet.request(Array.from({ length: 8 }, (_, n) => forgot(n)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    // Round robin: each API host answered some of them.
    for (const host of ["api1", "api2"] as const) {
      expect(fleet.lines(host).some((line) => line.includes("/api/auth/forgot"))).toBe(true);
    }
    // An address the client writes itself is no second budget: the balancer appends the one it saw.
    const forged = await fleet.request([
      forgot(100, { "x-forwarded-for": "198.51.100.7" }),
      forgot(101, { "x-forwarded-for": "198.51.100.8, 198.51.100.9" }),
    ]);
    expect(forged.map((answer) => answer.status)).toEqual([429, 429]);
  });

  it("counts a key's /v1 budget across both API hosts", async () => {
    const { key } = await newKey("budget", ["leads:read"]);
    const read = { path: "/v1/leads?limit=1", headers: { authorization: `Bearer ${key}` } };
    const served = (host: "api1" | "api2") =>
      fleet.lines(host).filter((line) => line.includes('"path":"/v1/leads"')).length;
    const before = [served("api1"), served("api2")];
    // 60 at once, spread over both hosts by the balancer, then one more: it sees all of them counted.
    const answers = await fleet.parallel(Array.from({ length: 60 }, () => read));
    expect(answers.filter((answer) => answer.status !== 200)).toEqual([]);
    const [last] = await fleet.request([read]);
    expect(last?.ratelimit).toMatch(/^"api-key";r=\d+;t=\d+$/);
    expect(Math.abs(remaining(last?.ratelimit) - (BUDGET - 61))).toBeLessThanOrEqual(1);
    // Both hosts served some of them: the count spans hosts.
    expect(served("api1")).toBeGreaterThan(before[0] ?? 0);
    expect(served("api2")).toBeGreaterThan(before[1] ?? 0);
    expect(served("api1")).toBeGreaterThan(before[0] ?? 0);
    expect(served("api2")).toBeGreaterThan(before[1] ?? 0);
  });

  it("measures reads through the balancer with two API hosts, then one", async () => {
    const { key } = await newKey("throughput", ["leads:read"]);
    const rush = async () => {
      const seconds = 8;
      const load = await fleet.load({ seconds, key, connections: 32, writes: false });
      const ms = load.answered.map(([, duration]) => duration);
      return {
        perSecond: Math.round(load.answered.length / seconds),
        p50: quantile(ms, 0.5),
        p99: quantile(ms, 0.99),
        failed: load.failures.length,
      };
    };
    const two = await rush();
    const one = await restart("api2", rush);
    for (const [hosts, figures] of [
      ["two API hosts", two],
      ["one API host", one],
    ] as const) {
      console.log(
        `through the balancer, ${hosts}: ${figures.perSecond} GET /v1/leads a second (32 connections), ` +
          `p50 ${figures.p50} ms, p99 ${figures.p99} ms, ${figures.failed} failed`,
      );
    }
    expect([two.failed, one.failed]).toEqual([0, 0]);
  }, 60_000);

  it("restarts each API host in turn behind HAProxy, under 200 requests/s with the machine's CPU loaded, with 0 failed requests", async () => {
    const { key } = await newKey("rolling", ["leads:read", "leads:write"]);
    // As many busy loops as the machine's CPUs (2), at normal priority: every process of the fleet, HAProxy's checks
    // and the roll itself wait their turn, as on a machine busy with more than the service.
    const burners = Array.from({ length: 2 }, () =>
      spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" }),
    );
    let roll: Record<string, unknown>[];
    let load: Awaited<ReturnType<Fleet["load"]>>;
    /** When the load began, and the roll began and ended (epoch ms). */
    const at = { load: Date.now(), roll: 0, rolled: 0 };
    const saidBefore = fleet.lines("haproxy").filter((line) => line.includes("api_hosts/")).length;
    try {
      const loading = fleet.load({ seconds: ROLL_LOAD_SECONDS, rate: 200, key, connections: 32 });
      await sleep(3_000);
      at.roll = Date.now();
      roll = await fleet.rollingRestart();
      at.rolled = Date.now();
      load = await loading;
    } finally {
      for (const burner of burners) burner.kill("SIGKILL");
    }
    const hosts = roll.filter((line) => line.step === "in_rotation");
    const steps = (host: unknown) =>
      roll
        .filter((line) => line.server === host && line.step !== "drained")
        .map((line) => `${line.step} ${line.ms} ms`)
        .join(", ");
    const during = load.answered.filter(([time]) => time >= at.roll && time <= at.rolled).length;
    console.log(
      `rolling restart, CPU loaded: ${load.sent} requests (${during} answered during the roll), ` +
        `${load.failures.length} failed, ` +
        `${load.acknowledged.length} writes; the roll ${roll.at(-1)?.ms} ms; ` +
        hosts
          .map((line) => `${line.server} out of rotation ${line.out_of_rotation_ms} ms (${steps(line.server)})`)
          .join("; "),
    );
    // What HAProxy said of its servers meanwhile (each check that changed a state, each drain and return).
    const said = fleet.lines("haproxy").filter((line) => line.includes("api_hosts/"));
    console.log(`HAProxy during the roll:\n${said.slice(saidBefore).join("\n")}`);
    expect(hosts.map((line) => line.server)).toEqual(["api1", "api2"]);
    // The whole roll under load: it ended before the load did.
    expect(at.rolled - at.load).toBeLessThan(ROLL_LOAD_SECONDS * 1_000);
    expect(load.failures.slice(0, 5)).toEqual([]);
    // Requests went through while the hosts were restarted. How many is the machine's speed: the load asks 200 a
    // second, and each of its lanes waits for its answer (printed above, not judged).
    expect(during).toBeGreaterThan(0);
    // In slices: a minute's writes as one argument is more than a command line holds.
    const stored = [];
    for (let from = 0; from < load.acknowledged.length; from += 2_000) {
      const keys = load.acknowledged.slice(from, from + 2_000);
      stored.push(
        ...(await fleet.sql(
          "SELECT external_id, count(*)::int AS n FROM leads WHERE external_id = ANY($1) GROUP BY external_id",
          [keys],
        )),
      );
    }
    expect(stored.length).toBe(load.acknowledged.length);
    expect(stored.every((row) => row.n === 1)).toBe(true);
  }, 180_000);

  it("routes around an API host cut off from the database, and serves through it again when it returns", async () => {
    fleet.ip("api1", "route", "add", "blackhole", "10.200.0.2/32");
    try {
      // Out of rotation: two failed checks of /ready (each ends at its 2 s deadline).
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      const answers = await fleet.request(Array.from({ length: 20 }, () => ({ path: "/ready" })));
      expect(answers.map((answer) => answer.status)).toEqual(Array.from({ length: 20 }, () => 200));
    } finally {
      fleet.ip("api1", "route", "del", "blackhole", "10.200.0.2/32");
    }
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    // Counted by the access lines of a path that is logged on every call (a probe is logged only when its answer changes).
    const served = () => fleet.lines("api1").filter((line) => line.includes('"path":"/openapi.json"')).length;
    const before = served();
    await fleet.request(Array.from({ length: 10 }, () => ({ path: "/openapi.json" })));
    // api1 answers again (no restart): the requests after its return reached it too.
    expect(served()).toBeGreaterThan(before);
  }, 60_000);

  it("keeps /v1 answering while Sentinel promotes the replica, and the budgets count in the new primary", async () => {
    const { key } = await newKey("failover", ["leads:read", "leads:write"]);
    const { key: counted } = await newKey("counted", ["leads:read"]);
    const read = { path: "/v1/leads?limit=1", headers: { authorization: `Bearer ${counted}` } };
    const [before] = await fleet.request([read]);
    expect(remaining(before?.ratelimit)).toBe(BUDGET - 1);
    const loading = fleet.load({ seconds: 15, rate: 100, key, connections: 32 });
    await sleep(4_000);
    const killed = Date.now();
    await fleet.stopService("redis", "SIGKILL");
    while (!fleet.lines("sentinel").some((line) => line.includes("+switch-master"))) {
      if (Date.now() - killed > 20_000) throw new Error(`no failover:\n${fleet.output("sentinel")}`);
      await sleep(20);
    }
    const switched = Date.now();
    const load = await loading;
    const during = load.answered.filter(([at]) => at >= killed && at <= switched + 2_000).map(([, ms]) => ms);
    const p99 = quantile(during, 0.99);
    console.log(
      `Redis failover: the replica promoted ${switched - killed} ms after the primary was killed; /v1 meanwhile ` +
        `${during.length} answers, p99 ${p99} ms, max ${Math.max(...during)} ms; ${load.failures.length} failed of ${load.sent}`,
    );
    expect(load.failures.slice(0, 5)).toEqual([]);
    expect(during.length).toBeGreaterThan(0);
    expect(p99).toBeLessThan(1_000);
    // Each API host back on Redis (its log says when), then the count made before the failover carries on in the new
    // primary (not a new budget, not PostgreSQL's).
    const restoredAt = async (host: "api1" | "api2") => {
      for (;;) {
        const line = fleet
          .lines(host)
          .find((text) => text.includes('"msg":"redis connection restored"') && JSON.parse(text).time > killed);
        if (line) return JSON.parse(line).time as number;
        if (Date.now() - killed > 30_000) {
          const said = fleet.lines(host).filter((text) => !text.includes('"msg":"request"'));
          throw new Error(
            `${host} not back on Redis 30 s after the kill; its lines but the access log:\n${said.join("\n")}`,
          );
        }
        await sleep(100);
      }
    };
    const restored = Math.max(await restoredAt("api1"), await restoredAt("api2"));
    console.log(`Redis failover: both API hosts back on Redis ${restored - killed} ms after the primary was killed`);
    await sleep(2_000);
    const after = await fleet.request([read, read]);
    expect(after.map((answer) => answer.status)).toEqual([200, 200]);
    expect(remaining(after[0]?.ratelimit)).toBe(BUDGET - 2);
    expect(remaining(after[1]?.ratelimit)).toBe(BUDGET - 3);
  }, 90_000);

  it("refuses a key revoked through one host on the other within a second", async () => {
    const created = await newKey("revoke", ["leads:read"]);
    const onApi2 = { path: "http://10.200.0.12:3000/v1/leads", headers: { authorization: `Bearer ${created.key}` } };
    // The key is known (and cached) on the second API host first.
    expect((await fleet.request([onApi2]))[0]?.status).toBe(200);
    const watching = fleet.request([{ ...onApi2, until: 401, timeoutMs: 10_000 }]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const revoked = await fleet.admin("api-key:revoke", "--id", String(created.id));
    const [refused] = await watching;
    expect(refused?.status).toBe(401);
    const late = (refused?.at ?? 0) - Date.parse(String(revoked.revoked_at));
    console.log(`revocation: refused on the other host ${late} ms after it was committed`);
    expect(late).toBeLessThan(1_000);
  }, 60_000);

  it("loses no delivery when a worker host's link is cut mid-drain; the other takes its jobs over", async () => {
    const DELIVERIES = 5_000;
    const { key, workspaceId } = await newKey("drain", ALL_SCOPES);
    const auth = { authorization: `Bearer ${key}` };
    const [subscribed] = await fleet.request([
      {
        method: "POST",
        path: "/v1/webhooks",
        headers: auth,
        body: { url: `${fleet.receiverUrl}/drain`, events: ["lead.captured"] },
      },
    ]);
    expect(subscribed?.status).toBe(201);
    const batches = Array.from({ length: DELIVERIES / 100 }, (_, batch) => ({
      method: "POST",
      path: "/v1/leads/batch",
      headers: { ...auth, "idempotency-key": `drain-${batch}` },
      body: {
        match_on: "external_id",
        items: Array.from({ length: 100 }, (_, i) => ({ external_id: `drain-${batch}-${i}`, name: "Drain" })),
      },
    }));
    const writes = await fleet.request(batches);
    expect(writes.filter((answer) => answer.status !== 200)).toEqual([]);

    const distinct = () => new Set(fleet.received().map((item) => item.webhookId)).size;
    while (distinct() < 1_000) await sleep(20);
    // Cut while the receiver holds an attempt of worker1's unanswered (it answers 100 ms after the receipt): that
    // attempt is in flight on the cut host, and its answer cannot reach it. A subscription's 10 attempts in flight may
    // all be worker2's for a while, so this waits for one of worker1's.
    const holding = () => fleet.received().some((item) => item.from === "worker1" && Date.now() - item.at < 30);
    const looking = Date.now();
    while (!holding()) {
      if (Date.now() - looking > 30_000) throw new Error("worker1 sent no delivery for 30 s of the drain");
      await sleep(5);
    }
    // The link cut, not the process stopped: its connections stay open on the database's side, its jobs active.
    const cut = Date.now();
    fleet.ip("worker1", "link", "set", "eth0", "down");
    const deliveredAtCut = distinct();
    // What the cut host held: the jobs started before the cut and still active once the other host's are done.
    await sleep(2_000);
    const stranded = (
      await fleet.sql(
        `SELECT id FROM ${QUEUE_SCHEMA}.job WHERE name = 'webhook-delivery' AND state = 'active' AND started_on < $1`,
        [new Date(cut).toISOString()],
      )
    ).map((row) => String(row.id));
    expect(
      stranded.length,
      `the cut host held attempts in flight:\n${fleet.output("worker1").slice(-3_000)}`,
    ).toBeGreaterThan(0);
    const notDone = `SELECT count(*)::int AS n FROM ${QUEUE_SCHEMA}.job WHERE id = ANY($1) AND state <> 'completed'`;
    let takenOver = 0;
    while (Date.now() - cut < 90_000) {
      if ((await fleet.sql(notDone, [stranded]))[0]?.n === 0) {
        takenOver = Date.now() - cut;
        break;
      }
      await sleep(250);
    }
    const deadline = Date.now() + 120_000;
    while (distinct() < DELIVERIES && Date.now() < deadline) await sleep(250);
    const received = fleet.received();
    console.log(
      `worker host lost: ${deliveredAtCut} of ${DELIVERIES} delivered at the cut, ${stranded.length} attempts stranded ` +
        `on it, all completed by the other host ${takenOver} ms after the cut; ${received.length} receipts, ` +
        `${received.length - distinct()} duplicates`,
    );
    expect(takenOver, "taken over within pg-boss's expiry").toBeGreaterThan(0);
    expect(takenOver).toBeLessThan(30_000);
    expect(distinct()).toBe(DELIVERIES);
    // A duplicate is the same message: its `webhook-id` is its event's id, as in the first delivery.
    expect(received.filter((item) => item.webhookId !== item.id)).toEqual([]);
    // Every event of the burst, none missed.
    const events = await fleet.sql("SELECT id FROM events WHERE workspace_id = $1 AND type = 'lead.captured'", [
      workspaceId,
    ]);
    expect(events.length).toBe(DELIVERIES);
    const got = new Set(received.map((item) => item.webhookId));
    expect(events.filter((event) => !got.has(String(event.id)))).toEqual([]);
  }, 360_000); // above the sum of its own deadlines (30 s, 90 s and 120 s after the drain began), which judge it
});
