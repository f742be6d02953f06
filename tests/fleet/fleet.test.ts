/**
 * The fleet in network namespaces (tests/helpers/fleet.ts): two API hosts behind HAProxy, two worker hosts, and a
 * database host with PostgreSQL and Redis through Sentinel. Needs root, `ip`, HAProxy and redis-server; without them
 * it is skipped with one line saying how to get them, and with CI=true it fails instead.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Fleet, fleetMissing, fleetNamespaces, startFleet } from "../helpers/fleet.ts";

const missing = fleetMissing();
if (missing && process.env.CI !== "true") console.warn(`skipping the fleet: ${missing}`);

describe.skipIf(missing !== undefined && process.env.CI !== "true")("the fleet behind HAProxy", () => {
  let fleet: Fleet;
  beforeAll(async () => {
    if (missing) throw new Error(missing);
    fleet = await startFleet({ API_RATE_LIMIT_PER_MINUTE: "1000000" });
  }, 180_000);
  afterAll(async () => {
    await fleet?.stop();
    // Nothing of it is left: no namespace (and with them their veth pairs and processes).
    expect(fleetNamespaces().filter((name) => fleet && name.includes(fleet.id))).toEqual([]);
  }, 60_000);

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
    for (const host of ["api1", "api2"] as const) expect(fleet.output(host)).toContain("/api/auth/forgot");
    // An address the client writes itself is no second budget: the balancer appends the one it saw.
    const forged = await fleet.request([
      forgot(100, { "x-forwarded-for": "198.51.100.7" }),
      forgot(101, { "x-forwarded-for": "198.51.100.8, 198.51.100.9" }),
    ]);
    expect(forged.map((answer) => answer.status)).toEqual([429, 429]);
  });

  it("comes through a rolling SIGTERM restart of each API host under load without a failed request", async () => {
    const workspace = await fleet.admin("workspace:create", "--name", "Fleet", "--owner-email", "fleet@example.com");
    const { key } = await fleet.admin(
      "api-key:create",
      "--workspace",
      String(workspace.workspace_id),
      "--name",
      "load",
      "--scopes",
      "leads:read,leads:write",
    );
    const loading = fleet.load({ seconds: 30, rate: 200, key: String(key) });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    for (const host of ["api1", "api2"] as const) {
      expect(await fleet.stopService(host)).toBe(0);
      await fleet.startService(host);
      // Back in rotation (rise 2, a second apart) before the next host goes.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
    }
    const load = await loading;
    console.log(
      `rolling restart: ${load.sent} requests, ${load.failures.length} failed, ${load.acknowledged.length} writes`,
    );
    expect(load.failures.slice(0, 5)).toEqual([]);
    expect(load.sent).toBeGreaterThan(3_000);
    const stored = await fleet.sql(
      "SELECT external_id, count(*)::int AS n FROM leads WHERE external_id = ANY($1) GROUP BY external_id",
      [load.acknowledged],
    );
    expect(stored.length).toBe(load.acknowledged.length);
    expect(stored.every((row) => row.n === 1)).toBe(true);
  }, 120_000);

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
    const served = () => fleet.output("api1").split('"path":"/health"').length;
    const before = served();
    await fleet.request(Array.from({ length: 10 }, () => ({ path: "/health" })));
    // api1 answers again (no restart): the requests after its return reached it too.
    expect(served()).toBeGreaterThan(before);
  }, 60_000);

  it("refuses a key revoked through one host on the other within a second", async () => {
    const workspace = await fleet.admin("workspace:create", "--name", "Revoke", "--owner-email", "revoke@example.com");
    const created = await fleet.admin(
      ...["api-key:create", "--workspace", String(workspace.workspace_id), "--name", "r", "--scopes", "leads:read"],
    );
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
});
