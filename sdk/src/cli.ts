#!/usr/bin/env node
/**
 * The SDK's command line: `npx @service/sdk listen --forward-to <url> [--events a,b] [--secret whsec_…]
 * [--state .service-listen.json] [--from now|N]`, with the API key in `SERVICE_API_KEY` and the service's address in
 * `SERVICE_BASE_URL` (see listen.ts).
 */
import { parseArgs } from "node:util";
import { listen } from "./listen.js";

const USAGE = `Usage: npx @service/sdk listen --forward-to <url> [options]

Follows the workspace's events and POSTs each one to <url>, signed as a webhook delivery.

Options:
  --forward-to <url>   where to send each event (required)
  --events <a,b>       only these event types (default: all)
  --secret <whsec_…>   the signing secret (default: a new one, printed at start)
  --state <file>       where the position is kept (default: .service-listen.json)
  --from <now|N>       where to start without a position: now (default) or after sequence N

Environment: SERVICE_API_KEY (an API key with events:read), SERVICE_BASE_URL (default http://127.0.0.1:3000).`;

function fail(message: string): never {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command !== "listen") fail(command ? `Unknown command: ${command}` : "No command given.");
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        "forward-to": { type: "string" },
        events: { type: "string" },
        secret: { type: "string" },
        state: { type: "string", default: ".service-listen.json" },
        from: { type: "string", default: "now" },
        help: { type: "boolean" },
      },
    }));
  } catch (error) {
    fail((error as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const forwardTo = values["forward-to"];
  if (typeof forwardTo !== "string") fail("--forward-to is required.");
  const apiKey = process.env.SERVICE_API_KEY;
  if (!apiKey) fail("Set SERVICE_API_KEY to an API key with the events:read scope.");
  const from = values.from === "now" ? "now" : Number(values.from);
  if (from !== "now" && !(Number.isInteger(from) && from >= 0)) fail("--from takes now or a sequence (0 or more).");
  const baseUrl = (process.env.SERVICE_BASE_URL ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
  const listening = await listen({
    apiKey,
    baseUrl,
    forwardTo,
    stateFile: String(values.state),
    from,
    ...(typeof values.events === "string" && { events: values.events.split(",").filter(Boolean) }),
    ...(typeof values.secret === "string" && { secret: values.secret }),
  });
  console.log(`Forwarding the events of ${baseUrl} to ${forwardTo}, signed with ${listening.secret}`);
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void listening.stop());
  await listening.done;
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
