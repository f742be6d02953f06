/**
 * Upserts that match on the e-mail address, at once (issue 41): an address has no unique index (two leads may share
 * one), so nothing but the batch's own lock on the address (db/match-locks.ts) keeps six concurrent calls from each
 * finding no lead and each creating one. Batches of one item and batches of several, with the address in varying case,
 * make exactly one lead per address, and every item matches it once it exists.
 */
import { describe, expect, it } from "vitest";
import { workspaceWithKey } from "../helpers/accounts.ts";
import { useTestService } from "../helpers/service.ts";

const service = useTestService({ API_RATE_LIMIT_PER_MINUTE: "100000" });

const ROUNDS = 50;
const CALLS = 6;

/** The address of round `round` as call `call` writes it: each call its own mix of upper and lower case. */
function spelling(round: number, call: number): string {
  const address = `race-${round}@example.com`;
  return [...address].map((char, i) => ((i + call) % 3 === 0 ? char.toUpperCase() : char)).join("");
}

interface Item {
  result: "created" | "updated" | "unchanged" | "failed";
  object?: { id: string; email: string };
  problem?: { code: string };
}

describe("POST /v1/leads/batch matching on e-mail, six calls at once", () => {
  it("makes exactly one lead per address in each of 50 rounds, whatever the case", async () => {
    const { key, workspaceId } = await workspaceWithKey(service(), ["leads:write", "leads:read"]);
    const batch = async (items: object[]): Promise<Item[]> => {
      const response = await service().fetch("/v1/leads/batch", {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${key}` },
        body: JSON.stringify({ match_on: "email", items }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return (JSON.parse(text) as { data: Item[] }).data;
    };
    const counts: number[] = [];
    const created: number[] = [];
    const failed: Item[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Half the calls create with one item; the others carry the address after an address of their own, and twice.
      const calls = Array.from({ length: CALLS }, (_, call) =>
        call % 2 === 0
          ? batch([{ email: spelling(round, call) }])
          : batch([
              { email: `own-${round}-${call}@example.com` },
              { email: spelling(round, call), name: `Call ${call}` },
              { email: spelling(round, call + 1), tags: ["race"] },
            ]),
      );
      const items = (await Promise.all(calls))
        .flat()
        .filter((item) => !item.object || item.object.email.toLowerCase().startsWith("race-"));
      failed.push(...items.filter((item) => item.result === "failed"));
      created.push(items.filter((item) => item.result === "created").length);
      const { rows } = await service().service.db.pool.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM leads WHERE workspace_id = $1 AND lower(email) = $2",
        [workspaceId, `race-${round}@example.com`],
      );
      counts.push(rows[0]?.n ?? 0);
    }
    expect(failed, "items that failed").toEqual([]);
    expect(created, "items answered `created` in each round").toEqual(Array(ROUNDS).fill(1));
    expect(counts, "leads of each round's address").toEqual(Array(ROUNDS).fill(1));
  });
});
