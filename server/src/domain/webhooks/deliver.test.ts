import { once } from "node:events";
import { readFileSync } from "node:fs";
import { Agent, createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeCertificates } from "../../../../tests/helpers/receiver.ts";
import {
  attemptHeaders,
  classify,
  type DeliveryHttp,
  post,
  RESPONSE_BODY_LIMIT_BYTES,
  type Target,
} from "./deliver.ts";
import { pinnedLookup } from "./ssrf.ts";

const vectors = JSON.parse(
  readFileSync(new URL("../../../../tests/vectors/webhook-signatures.json", import.meta.url), "utf8"),
);
const now = Date.parse("2026-11-22T00:00:00Z");
const schedule = [5, 300];

describe("what an answer means", () => {
  const given = (status: number | undefined, attempt = 1, retryAfter?: string) =>
    classify({ status, retryAfter }, { attempt, schedule, now, random: () => 0.5 });

  it.each([
    { status: 200, attempt: 1, want: { next: { status: "succeeded" }, health: "healthy" } },
    { status: 204, attempt: 3, want: { next: { status: "succeeded" }, health: "healthy" } },
    { status: 410, attempt: 1, want: { next: { status: "failed" }, health: "gone" } },
    { status: 500, attempt: 1, want: { next: { status: "pending", delaySeconds: 5 }, health: "failing" } },
    { status: undefined, attempt: 2, want: { next: { status: "pending", delaySeconds: 300 }, health: "failing" } },
    { status: 302, attempt: 1, want: { next: { status: "pending", delaySeconds: 5 }, health: "failing" } },
    { status: 500, attempt: 3, want: { next: { status: "failed" }, health: "failing" } },
  ])("$status after attempt $attempt: $want.next.status, $want.health", ({ status, attempt, want }) => {
    expect(given(status, attempt)).toEqual(want);
  });

  it("waits at least the Retry-After of a 429 or 503", () => {
    expect(given(429, 1, "120")).toEqual({ next: { status: "pending", delaySeconds: 120 }, health: "failing" });
    expect(given(503, 1, "Sun, 22 Nov 2026 00:10:00 GMT").next).toEqual({ status: "pending", delaySeconds: 600 });
  });
});

describe("the headers of an attempt", () => {
  const { secret, id, timestamp, payload, signature } = vectors.valid;
  const target: Target = {
    id: "dlv_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
    webhook_id: "wh_01JD3Z6Q4W2YB7K8N9P0R5S6T7",
    attempt_count: 0,
    schedule_offset: 0,
    traceparent: null,
    tracestate: null,
    event_id: id,
    event_type: "lead.captured",
    payload,
    url: "https://hooks.example.com/",
    secret,
    previous_secret: null,
    previous_secret_expires_at: null,
  };

  it("sign the stored body under the event's id, the same on every attempt", () => {
    const headers = attemptHeaders(target, timestamp, now);
    expect(headers).toMatchObject({
      "webhook-id": id,
      "webhook-timestamp": timestamp,
      "webhook-signature": signature,
      "x-service-signature": signature,
      "x-service-event": "lead.captured",
      "x-service-delivery": target.id,
    });
    expect(attemptHeaders({ ...target, attempt_count: 4 }, timestamp, now)["webhook-id"]).toBe(id);
  });

  it("carry the previous secret's signature during its overlap only", () => {
    const previous = { previous_secret: vectors.rotation.previousSecret };
    const during = attemptHeaders(
      { ...target, ...previous, previous_secret_expires_at: new Date(now + 1) },
      timestamp,
      now,
    );
    expect(during["webhook-signature"]).toBe(vectors.rotation.signature);
    const after = attemptHeaders({ ...target, ...previous, previous_secret_expires_at: new Date(now) }, timestamp, now);
    expect(after["webhook-signature"]).toBe(signature);
  });
});

const certificates = await makeCertificates();

describe("one POST", () => {
  let server: Server;
  let base: string;
  const http = (timeoutMs = 2_000, allowPrivateNetworks = true): DeliveryHttp => ({
    agent: new Agent({ ca: readFileSync(certificates.caFile) }),
    lookup: pinnedLookup({ allowPrivateNetworks }),
    timeoutMs,
  });

  beforeAll(async () => {
    server = createServer({ key: certificates.key, cert: certificates.cert }, (req, res) => {
      if (req.url === "/big") res.writeHead(503, { "retry-after": "7" }).end("x".repeat(10_000));
      else if (req.url === "/moved") res.writeHead(302, { location: "https://elsewhere.example/" }).end();
      else if (req.url === "/silent") req.resume();
      else if (req.url === "/trickle") {
        res.writeHead(200);
        const drip = setInterval(() => res.write("."), 20);
        res.on("close", () => clearInterval(drip));
      } else res.writeHead(204).end();
    });
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    base = `https://localhost:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => {
    server.closeAllConnections();
    server.close();
  });

  it("keeps the status, Retry-After and the first 4 KiB of the answer", async () => {
    const answer = await post(`${base}/big`, {}, "{}", http());
    expect(answer).toMatchObject({ status: 503, retryAfter: "7", error: null });
    expect(answer.body).toHaveLength(RESPONSE_BODY_LIMIT_BYTES);
  });

  it("does not follow a redirect", async () => {
    const answer = await post(`${base}/moved`, {}, "{}", http());
    expect(answer).toMatchObject({ status: 302, error: "redirect to https://elsewhere.example/ not followed" });
  });

  it("answers without a status when the receiver does not answer in time", async () => {
    const answer = await post(`${base}/silent`, {}, "{}", http(200));
    expect(answer).toMatchObject({ status: undefined, error: "no answer within 200 ms" });
  });

  it("ends at its deadline while the receiver trickles its answer, keeping the status", async () => {
    const answer = await post(`${base}/trickle`, {}, "{}", http(300));
    expect(answer).toMatchObject({ status: 200, error: expect.stringMatching(/^answer cut off after \d+ ms$/) });
    expect(answer.durationMs).toBeLessThan(1_000);
  });

  it("refuses a private address unless allowed", async () => {
    const answer = await post(`${base}/ok`, {}, "{}", http(2_000, false));
    expect(answer.status).toBeUndefined();
    expect(answer.error).toMatch(/loopback address; refused/);
  });
});
