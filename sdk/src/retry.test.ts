import { describe, expect, it } from "vitest";
import { retryAfterMs, retryingFetch } from "./retry.js";

describe("retryAfterMs", () => {
  it.each([
    ["3", 3000],
    [" 0 ", 0],
    ["Wed, 21 Oct 2015 07:28:10 GMT", 10_000],
    ["soon", undefined],
    [null, undefined],
  ])("%j → %s", (value, want) => {
    expect(retryAfterMs(value, Date.parse("Wed, 21 Oct 2015 07:28:00 GMT"))).toBe(want);
  });
});

describe("retryingFetch", () => {
  const request = () => new Request("http://example.test/v1/leads", { method: "POST", body: "{}" });

  it("retries 429 and 503 after Retry-After, network errors after a backoff, then returns the answer", async () => {
    const waits: number[] = [];
    const answers = [
      () => new Response(null, { status: 429, headers: { "retry-after": "2" } }),
      () => {
        throw new TypeError("fetch failed");
      },
      () => new Response(null, { status: 503 }),
      () => new Response("{}", { status: 201 }),
    ];
    let calls = 0;
    const fetchWithRetry = retryingFetch(async () => (answers[calls++] as () => Response)(), {
      maxRetries: 3,
      maxDelayMs: 30_000,
      baseDelayMs: 100,
      sleep: async (ms) => void waits.push(ms),
    });
    const response = await fetchWithRetry(request());
    expect(response.status).toBe(201);
    expect(calls).toBe(4);
    expect(waits[0]).toBe(2000);
    expect(waits[1]).toBeLessThanOrEqual(200);
    expect(waits[2]).toBeLessThanOrEqual(400);
  });

  it("gives up after maxRetries and returns the last answer; never retries other statuses", async () => {
    let calls = 0;
    const always503 = retryingFetch(
      async () => {
        calls++;
        return new Response(null, { status: 503 });
      },
      {
        maxRetries: 2,
        maxDelayMs: 10,
        baseDelayMs: 1,
        sleep: async () => undefined,
      },
    );
    expect((await always503(request())).status).toBe(503);
    expect(calls).toBe(3);

    let badCalls = 0;
    const bad = retryingFetch(
      async () => {
        badCalls++;
        return new Response(null, { status: 400 });
      },
      {
        maxRetries: 3,
        maxDelayMs: 10,
        baseDelayMs: 1,
        sleep: async () => undefined,
      },
    );
    expect((await bad(request())).status).toBe(400);
    expect(badCalls).toBe(1);
  });

  it("caps a long Retry-After at maxDelayMs", async () => {
    const waits: number[] = [];
    let calls = 0;
    const fetchWithRetry = retryingFetch(
      async () =>
        calls++ === 0
          ? new Response(null, { status: 429, headers: { "retry-after": "3600" } })
          : new Response(null, { status: 200 }),
      { maxRetries: 1, maxDelayMs: 5000, baseDelayMs: 1, sleep: async (ms) => void waits.push(ms) },
    );
    await fetchWithRetry(request());
    expect(waits).toEqual([5000]);
  });
});
