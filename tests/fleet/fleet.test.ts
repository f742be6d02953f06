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
    fleet = await startFleet();
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
});
