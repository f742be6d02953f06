/**
 * The counting receiver (servers/count-receiver.mjs) in its own process, with certificates from a CA of its own:
 * the service under a benchmark trusts it through NODE_EXTRA_CA_CERTS = `caFile`.
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { makeCertificates } from "../helpers/receiver.ts";

export async function startCountReceiver() {
  const certificates = await makeCertificates();
  const child = spawn(
    process.execPath,
    [new URL("./servers/count-receiver.mjs", import.meta.url).pathname, certificates.dir],
    { stdio: ["ignore", "pipe", "inherit", "ipc"] },
  );
  const port = await new Promise<string>((resolve) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
  });
  const stats = () =>
    new Promise<{ count: number; first: number; last: number }>((resolve) => {
      child.once("message", (message) => resolve(message as { count: number; first: number; last: number }));
      child.send("stats");
    });
  return { url: `https://127.0.0.1:${port}`, caFile: certificates.caFile, child, stats };
}

/** Subscribes the key's workspace, through the service at `serviceUrl`, to `lead.captured` at the receiver. */
export async function subscribeToLeads(serviceUrl: string, key: string, receiverUrl: string): Promise<void> {
  const subscribed = await fetch(`${serviceUrl}/v1/webhooks`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ url: `${receiverUrl}/hooks`, events: ["lead.captured"] }),
  });
  if (subscribed.status !== 201) throw new Error(`subscription: ${subscribed.status} ${await subscribed.text()}`);
}
