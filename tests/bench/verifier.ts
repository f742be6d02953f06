/**
 * Benchmark: verifications per second of @service/webhook-verifier (node:crypto and WebCrypto builds) against the
 * `standardwebhooks` library, on the same signed payloads (the shared test vector's event, ~600 bytes).
 *
 *   npm run build && npm run bench:verifier
 */
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";
import * as web from "../../webhook-verifier/src/index.ts";
import * as node from "../../webhook-verifier/src/node.ts";

const vectors = JSON.parse(readFileSync(new URL("../vectors/webhook-signatures.json", import.meta.url), "utf8"));
const { secret, id, payload } = vectors.valid as { secret: string; id: string; payload: string };
const timestamp = String(Math.floor(Date.now() / 1000));
const signature = new Webhook(secret).sign(id, new Date(Number(timestamp) * 1000), payload);
const headers = { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": signature };
const DURATION_MS = 2000;

async function measure(name: string, verify: () => unknown | Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2000; i++) await verify(); // warm-up
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < DURATION_MS) {
    for (let i = 0; i < 500; i++) await verify();
    count += 500;
  }
  const perSecond = count / ((performance.now() - started) / 1000);
  console.log(`${name.padEnd(36)} ${perSecond.toFixed(0).padStart(8)} verifications/s`);
  return perSecond;
}

const standard = new Webhook(secret);
const baseline = await measure("standardwebhooks (Webhook.verify)", () => standard.verify(payload, headers));
const ours = await measure("@service/webhook-verifier (node)", () => node.verifyWebhook({ payload, headers, secret }));
const oursWeb = await measure("@service/webhook-verifier (WebCrypto)", () =>
  web.verifyWebhook({ payload, headers, secret }),
);
console.log(
  `node build: ${(ours / baseline).toFixed(2)}× standardwebhooks; WebCrypto build: ${(oursWeb / baseline).toFixed(2)}×`,
);
